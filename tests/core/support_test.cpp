// What a source states, as the support of an answer reads it, and the acceptance of answers by
// the facts they state (rag/answer_facts.hpp).
#include "rag/answer_facts.hpp"
#include "rag/support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Evidence evidence(const std::string& kind, const std::string& text, bool starts_in_code = false) {
  Evidence e;
  e.kind = kind;
  e.text = text;
  e.starts_in_code = starts_in_code;
  return e;
}

TEST(StatedText, PythonKeepsDocstringsAndCommentsAndDropsOtherStrings) {
  const std::string stated = stated_text(evidence("python", R"(PROMPTS = ["The capital of France is", 'Paris']
BATCH = """{"text": "What is the capital of France?"}
{"text": "again France"}"""


def f(x):
    """Parse a port of the server."""
    return x  # the server's port
)"));
  EXPECT_THAT(stated, Not(HasSubstr("France")));
  EXPECT_THAT(stated, HasSubstr("Parse a port of the server."));
  EXPECT_THAT(stated, HasSubstr("# the server's port"));
  EXPECT_THAT(stated, HasSubstr("PROMPTS"));
}

TEST(StatedText, StringsOnTheirOwnLinesInsideBracketsAreData) {
  const std::string stated = stated_text(evidence("python", R"(PROMPTS = [
    "What is the capital of Italy famous for?",
    'Describe this image',
]
call(
    "Paris",
)


class A:
    """The class A."""

    x: int = 1
    """The field x."""
)"));
  EXPECT_THAT(stated, Not(HasSubstr("Italy")));
  EXPECT_THAT(stated, Not(HasSubstr("image")));
  EXPECT_THAT(stated, Not(HasSubstr("Paris")));
  EXPECT_THAT(stated, HasSubstr("The class A."));
  EXPECT_THAT(stated, HasSubstr("The field x."));
}

TEST(StatedText, MarkdownKeepsProseAndDropsTheLiteralsOfFencedCode) {
  const std::string text = "Score pairs of texts:\n\n```bash\ncurl -d '{\n  \"text_1\": \"capital of France\"\n}'\n```\n\n"
                           "The capital of the project is its docs.";
  const std::string stated = stated_text(evidence("markdown", text));
  EXPECT_THAT(stated, Not(HasSubstr("France")));
  EXPECT_THAT(stated, HasSubstr("Score pairs of texts:"));
  EXPECT_THAT(stated, HasSubstr("The capital of the project is its docs."));
  // A passage cut inside a code block: its first fence closes the block.
  const std::string cut = stated_text(evidence("text", "\"capital of France\"\n```\nProse about France.", true));
  EXPECT_EQ(cut, "Prose about France.\n");
  // Cut inside a string, the first line would read the data outside the quotes: it states nothing.
  const std::string mid_string = stated_text(evidence(
      "markdown", "of France?\", \"answers\": [\"The capital of France is Paris.\"]}\n{\"id\": 2}\n```\nProse.", true));
  EXPECT_EQ(mid_string, "{\"\": 2}\nProse.\n");
}

TEST(StatedText, StringsAfterACommentOrWrittenAcrossLinesAreData) {
  // The first string of a list ends a line with a comment; the next pieces are one string written
  // across lines (implicit concatenation), as test prompts are.
  const std::string stated = stated_text(evidence("python", R"(EXPECTED = [
    "",  # noqa: E501
    " Write a SQL query: CREATE TABLE table_name_11",  # noqa: E501
]
SAMPLE = (
    ""
    "the meaning of life is "
    'Liberty and the pursuit of Happiness.',
)
)"));
  EXPECT_THAT(stated, Not(HasSubstr("TABLE")));
  EXPECT_THAT(stated, Not(HasSubstr("life")));
  EXPECT_THAT(stated, Not(HasSubstr("Liberty")));
  EXPECT_THAT(stated, HasSubstr("# noqa: E501"));
}

TEST(TestInput, PlainFilesOfTestAndBenchmarkFoldersAreInputsNotStatements) {
  for (const char* path : {"benchmarks/sonnet.txt", "tests/prompts/example.txt", "src/test/fixtures/a.jsonl", "testdata/x.csv"})
    EXPECT_TRUE(is_test_input("text", path)) << path;
  // A page or a script there (chunked as plain text too) states what it states.
  for (const char* path : {"benchmarks/auto_tune/README.md", "benchmarks/run.sh", "tests/config.yaml"})
    EXPECT_FALSE(is_test_input("text", path)) << path;
  // Code and Markdown there state what they state; a plain file elsewhere does too, and so does
  // one whose folder only begins like such a folder's name, or a file named like one.
  for (const char* kind : {"python", "markdown", "cpp"}) EXPECT_FALSE(is_test_input(kind, "tests/prompts/example.txt")) << kind;
  for (const char* path : {"docs/sonnet.txt", "testsuite/notes.txt", "tests", "benchmarks.txt", "my_tests/a.txt"})
    EXPECT_FALSE(is_test_input("text", path)) << path;
}

TEST(StatedText, AFieldsDocstringAfterAStringDefaultIsKept) {
  const std::string stated = stated_text(evidence("python", "    tokenizer_mode: str = \"auto\"\n    \"\"\"Tokenizer mode: slow always uses the slow tokenizer.\"\"\"\n"));
  EXPECT_THAT(stated, HasSubstr("slow always uses the slow tokenizer"));
}

TEST(StatedText, CppKeepsCommentsAndDropsStrings) {
  const std::string stated = stated_text(evidence("cpp", "// Swaps blocks between France and Spain\nputs(\"France\");\n"));
  EXPECT_EQ(stated, "// Swaps blocks between France and Spain\nputs(\"\");\n");
}

class Facts : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& json) { return dir_.write("facts.json", json); }
  testing::TempDir dir_;
};

TEST_F(Facts, LoadsQuestionsAndRefusesMalformedOnes) {
  const auto good = write(R"({"rag_questions": [
    {"question_id": "a", "question": "How do I start it?", "kind": "how-to", "language": "en", "facts": [["vllm serve"], ["8000", "port"]]},
    {"question_id": "b", "question": "Capital of France?", "kind": "out-of-scope", "language": "en", "answerable": false}]})");
  const auto facts = load_facts(good);
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].facts.size(), 2u);
  EXPECT_FALSE(facts[1].answerable);
  const auto refused = [&](const std::string& json, const std::string& message) {
    try {
      load_facts(write(json));
      ADD_FAILURE() << json;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(message)) << json;
    }
  };
  refused("{", "not valid JSON");
  refused(R"({"questions": []})", "expected {\"rag_questions\": [...]}");
  refused(R"({"rag_questions": []})", "no questions");
  refused(R"({"rag_questions": [{"question_id": "a", "question": "q", "kind": "k", "language": "en"}]})",
          "question 1 (a): an answerable question needs 'facts'");
  refused(R"({"rag_questions": [{"question_id": "a", "question": "q", "kind": "k", "language": "en", "facts": [[]]}]})",
          "each fact must be a non-empty list of phrasings");
  refused(R"({"rag_questions": [{"question_id": "a", "question": "q", "kind": "k", "language": "en", "facts": [[" "]]}]})",
          "a phrasing must be a non-empty string");
  refused(R"({"rag_questions": [{"question_id": "a", "question": "q", "kind": "k", "language": "en", "answerable": false, "facts": [["x"]]}]})",
          "a question that is not answerable has no facts");
  refused(R"({"rag_questions": [{"question_id": "a", "question": "q", "language": "en", "facts": [["x"]]}]})",
          "'kind' must be a non-empty string");
  refused(R"({"rag_questions": [{"question_id": "a", "question": "q", "kind": "k", "language": "en", "facts": [["x"]]},
                                {"question_id": "a", "question": "q", "kind": "k", "language": "en", "facts": [["x"]]}]})",
          "question 2 (a): the id is used twice");
  EXPECT_THROW(load_facts(dir_ / "missing.json"), Error);
}

TEST_F(Facts, AcceptsAnswersThatStateEveryFactAndDeclinesThatCiteNothing) {
  const auto facts = load_facts(write(R"({"rag_questions": [
    {"question_id": "a", "question": "How?", "kind": "how-to", "language": "en", "facts": [["vllm serve"], ["8000", "port"]]},
    {"question_id": "b", "question": "How?", "kind": "how-to", "language": "en", "facts": [["vllm serve"]]},
    {"question_id": "c", "question": "Capital?", "kind": "out-of-scope", "language": "en", "answerable": false},
    {"question_id": "d", "question": "Capital?", "kind": "out-of-scope", "language": "en", "answerable": false},
    {"question_id": "e", "question": "How?", "kind": "how-to", "language": "en", "facts": [["vllm serve"]]}]})"));
  const auto answer = [](const std::string& id, const std::string& text, bool answered) {
    AnsweredResult a;
    a.result.question_id = id;
    a.record.answer = text;
    a.record.answered = answered;
    return a;
  };
  const FactsEvaluation e = evaluate_facts(
      facts, {answer("a", "Run `VLLM   serve`; it listens on\nPORT 8000. [1]", true), answer("b", "Use the CLI. [1]", true),
              answer("c", "The sources do not answer this question.", false), answer("d", "Paris. [2]", true),
              answer("e", "vllm serve", false)});
  EXPECT_EQ(e.accepted, 2u);
  EXPECT_EQ(e.cited_out_of_scope, 1u);
  EXPECT_TRUE(e.verdicts[0].accepted);  // case and whitespace aside
  EXPECT_EQ(e.verdicts[1].missing, std::vector<std::string>{"vllm serve"});
  EXPECT_TRUE(e.verdicts[2].accepted);
  EXPECT_FALSE(e.verdicts[3].accepted);
  EXPECT_FALSE(e.verdicts[4].accepted);  // declined, though the words are there
  EXPECT_DOUBLE_EQ(e.share(), 0.4);
  EXPECT_THROW(evaluate_facts(facts, {answer("a", "x", true)}), Error);  // b..e have no answer
  EXPECT_THROW(evaluate_facts({facts[0]}, {answer("a", "x", true), answer("zz", "y", true)}), Error);
}

}  // namespace
}  // namespace rag
