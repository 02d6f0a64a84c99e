#include "openai_generator.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::OpenAiGenerator, "openai", "1.0.0",
                 "Answers from an OpenAI-compatible server (POST /v1/chat/completions): vLLM, llama.cpp, ...");
