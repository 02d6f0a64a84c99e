#!/usr/bin/env bash
# The SDK guide, step by step (docs/writing-a-retriever.md): install rag into a scratch prefix,
# build examples/retriever out of tree against it with find_package(rag), and run a pipeline
# that uses the new retriever through the installed `rag`.
# Usage: example_plugin_test.sh <rag build dir> <rag source dir>
set -euo pipefail
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source/examples/retriever" -B "$scratch/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/example" >/dev/null

cp -r "$source/tests/fixtures/repo" "$scratch/repo"
cat > "$scratch/overlap.yaml" <<YAML
corpus: {root: repo}
chunkers:
  - {plugin: python, files: "**/*.py"}
  - {plugin: markdown, files: "**/*.md"}
  - {plugin: text, files: "**"}
retriever:
  plugin: overlap
  options: {min_share: 0.5, analysis: {default: {stemmer: english}}}
index: index
plugin_paths: [$scratch/example]
YAML
cd "$scratch"
"$scratch/prefix/bin/rag" plugins --pipeline overlap.yaml | grep -q "retriever	overlap	1.0.0"
"$scratch/prefix/bin/rag" index --pipeline overlap.yaml 2>/dev/null
"$scratch/prefix/bin/rag" search "Which flag loads AWQ quantized checkpoints?" --k 1 --pipeline overlap.yaml > result.json
grep -q '"file_path": "repo/docs/guide.md"' result.json
# An edit is an update of the index, a new segment, not a rebuild.
echo "Zanzibar checkpoints load with the quokka flag." >> repo/notes.txt
"$scratch/prefix/bin/rag" index --pipeline overlap.yaml 2> update.txt
grep -q "1 changed, 0 added, 0 removed" update.txt
"$scratch/prefix/bin/rag" search "zanzibar quokka" --k 1 --pipeline overlap.yaml > result.json
grep -q '"file_path": "repo/notes.txt"' result.json
# An unknown option is refused by the plugin, naming the pipeline file and the key.
sed 's/min_share: 0.5/min_shar: 0.5/' overlap.yaml > typo.yaml
if "$scratch/prefix/bin/rag" index --pipeline typo.yaml 2> error.txt; then exit 1; fi
grep -q "typo.yaml: retriever.options: unknown option 'min_shar'" error.txt
# The server is a module the installed rag finds in its lib folder.
"$scratch/prefix/bin/rag" serve --help | grep -q -- "--token-env"
echo "example plugin built out of tree, loaded and searched"
