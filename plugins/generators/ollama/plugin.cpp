#include "ollama_generator.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::OllamaGenerator, "ollama", "1.0.0",
                 "Answers from a local Ollama server (POST /api/chat), qwen3:0.6b by default");
