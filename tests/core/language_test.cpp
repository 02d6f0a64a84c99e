// Language detection of questions, for the prompt's "answer in ..." line.
#include "rag/language.hpp"

#include <gtest/gtest.h>

namespace rag {
namespace {

TEST(DetectLanguage, TellsTheSixLanguagesApart) {
  EXPECT_EQ(detect_language("How do I configure the OpenAI-compatible server?"), "en");
  EXPECT_EQ(detect_language("Comment configurer le serveur compatible avec OpenAI ?"), "fr");
  EXPECT_EQ(detect_language("¿Cómo se configura el servidor compatible con OpenAI?"), "es");
  EXPECT_EQ(detect_language("Wie konfiguriere ich den OpenAI-kompatiblen Server?"), "de");
  // "was" alone, in both languages: German's is followed by a verb, English's by its subject.
  EXPECT_EQ(detect_language("Was steuert `gpu_memory_utilization`?"), "de");
  EXPECT_EQ(detect_language("Was macht --enforce-eager?"), "de");
  EXPECT_EQ(detect_language("Was it removed in v1?"), "en");
  EXPECT_EQ(detect_language("Was that flag renamed?"), "en");
  EXPECT_EQ(detect_language("Was prefix caching enabled by default?"), "en");
  EXPECT_EQ(detect_language("Was output truncated?"), "en");
  EXPECT_EQ(detect_language("Was support removed?"), "en");
  EXPECT_EQ(detect_language("Was default changed in v1?"), "en");
  EXPECT_EQ(detect_language("Comment lancer vLLM in Docker ?"), "fr");
  EXPECT_EQ(detect_language("Как настроить сервер, совместимый с OpenAI?"), "ru");
  EXPECT_EQ(detect_language("如何配置与 OpenAI 兼容的服务器？"), "zh");
}

TEST(DetectLanguage, CodeInTheQuestionDoesNotSwayIt) {
  EXPECT_EQ(detect_language("Quelle est la valeur par défaut de max_model_len dans LLMEngine ?"), "fr");
  EXPECT_EQ(detect_language("Что делает функция get_kv_cache_spec в GPUModelRunner?"), "ru");
  EXPECT_EQ(detect_language("max_model_len 参数的默认值是什么"), "zh");
  EXPECT_EQ(detect_language("什么是PagedAttention?"), "zh");  // a Han character is about a word
  EXPECT_EQ(detect_language("What does the 模型 field of ModelConfig hold?"), "en");
  EXPECT_EQ(detect_language("What does das_ist_gut return in la.le.les?"), "en");
}

TEST(DetectLanguage, UnsureMeansEnglish) {
  EXPECT_EQ(detect_language(""), "en");
  EXPECT_EQ(detect_language("vllm serve --tensor-parallel-size 2"), "en");
  EXPECT_EQ(detect_language("\xff\xfe broken bytes"), "en");
}

TEST(LanguageName, NamesTheCodes) {
  EXPECT_EQ(language_name("fr"), "French");
  EXPECT_EQ(language_name("zh"), "Chinese");
  EXPECT_EQ(language_name("xx"), "xx");
}

}  // namespace
}  // namespace rag
