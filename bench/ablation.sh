#!/usr/bin/env bash
# The ablation of docs/retrieval.md: every step of configs/ablation/ and the default pipeline,
# compared with `rag compare` on the three shared datasets. Writes bench/ablation.md (the
# tables) and prints the comparison. Indexes each pipeline once (reused afterwards).
# Usage: bench/ablation.sh [--json FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
datasets=../shared/data/datasets/AnsweredQuestions
build/release/rag compare \
  configs/ablation/1-plain.yaml configs/ablation/2-identifiers.yaml configs/ablation/3-path.yaml \
  configs/ablation/4-structure.yaml configs/ablation/5-granularity.yaml configs/ablation/6-passages.yaml \
  configs/default.yaml configs/ablation/7-fusion.yaml configs/ablation/8-feedback.yaml configs/tfidf.yaml \
  --dataset "$datasets/dataset_docs_public.json" --dataset "$datasets/dataset_code_public.json" \
  --dataset "$datasets/Dataset_2025-09-21_valid.json" --show 0 --markdown bench/ablation.md "$@"
