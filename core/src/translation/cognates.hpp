#pragma once
// The English words a word of a French, German, Spanish or Russian question may be written as:
// cognates and loanwords, for the words no dictionary knows (translation.cpp). Guesses, most of
// them wrong: the caller keeps the one the corpus uses most, if any.
#include <string>
#include <string_view>
#include <vector>

namespace rag {

/// Cyrillic in Latin letters, for loanwords no dictionary has ("сервер" -> server, "токен" ->
/// token); empty when `word` holds a letter that is not Cyrillic.
std::string transliterated(std::string_view word);

/// English words `word` (lower case, language `code`: fr, de, es, ru) may be the cognate of: its
/// letters without accents (Russian ones in Latin letters), and those with the language's regular
/// changes of ending ("latencia" latency, "servidor" server, "mémoire" memory, "Quantisierung"
/// quantization, "конфигурация" configuration; a Spanish plural's as its singular's, "servidores")
/// and of letters (German k and z, Spanish j, Russian k, kv and ks: "Kompatibilität"
/// compatibility, "Prozess" process, "prefijo" prefix, "индекс" index); the changed endings first.
/// None for another language.
std::vector<std::string> cognates(std::string_view code, std::string_view word);

/// More guesses for a Russian word (lower case) that no dictionary reads to a word the corpus
/// uses: Russian writes an English loanword by its sound, so a letter may stand for several
/// English spellings ("кэш" cache: э as a, ш as ch; "кластер" cluster, "плагин" plugin: а as u;
/// "драйвер" driver: ай as i; "тензор" tensor: з as s; "чекпоинт" checkpoint: к as ck), and the
/// English word may end as the Russian one does not ("кэширование" caching, "логирование"
/// logging, "эмбеддинги" embeddings, "инференс" inference, "квантовать" quantize; the endings of
/// cases and adjectives: "в кластере" cluster, "тензорным" tensor). Many more guesses than
/// cognates() makes, and more of them wrong: they compete with its guesses only when the
/// dictionaries offer nothing the corpus uses. None when a letter of `word` is not a Russian one.
std::vector<std::string> loanword_cognates(std::string_view word);

}  // namespace rag
