#!/usr/bin/env bash
# One-time set-up on Debian 12, then the main job: installs the Debian packages, fetches the
# tree-sitter-python grammar from npm, unpacks the vLLM corpus, builds in release mode, indexes
# the corpus with the default pipeline and runs one search.
#   scripts/setup.sh            everything, ending with the main job
#   scripts/setup.sh --no-run   everything but the main job (what the tests need)
set -euo pipefail
cd "$(dirname "$0")/.."

run_main_job=1
[[ "${1:-}" == "--no-run" ]] && run_main_job=0

say() { printf '==> %s\n' "$*" >&2; }

# --- Debian packages ---------------------------------------------------------------------
packages=(build-essential cmake ninja-build pkg-config git openssl ca-certificates
  libboost-dev libboost-program-options-dev libyaml-cpp-dev libtree-sitter-dev libmd4c-dev
  libstemmer-dev nlohmann-json3-dev libcpp-httplib-dev libtbb-dev libgtest-dev libgmock-dev
  libbenchmark-dev zlib1g-dev libicu-dev)
source scripts/debian.sh
command -v npm >/dev/null || packages+=(npm)  # keep a Node.js the machine already has
ensure_debian_packages "${packages[@]}"

# --- tree-sitter-python grammar (C sources from npm; never committed) -----------------------
grammar_version=0.23.6
grammar_sha512='yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A=='
grammar_dir=.deps/tree-sitter-python
if [[ ! -f "$grammar_dir/src/parser.c" || "$(cat "$grammar_dir/VERSION" 2>/dev/null)" != "$grammar_version" ]]; then
  say "fetching tree-sitter-python@$grammar_version from npm"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "tree-sitter-python@$grammar_version" >/dev/null)
  tarball="$tmp/tree-sitter-python-$grammar_version.tgz"
  actual=$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
  if [[ "$actual" != "$grammar_sha512" ]]; then
    echo "error: tree-sitter-python-$grammar_version.tgz failed its integrity check (sha512 $actual)" >&2
    exit 1
  fi
  rm -rf "$grammar_dir" && mkdir -p "$grammar_dir"
  tar xzf "$tarball" -C "$grammar_dir" --strip-components=1 package/src package/LICENSE
  echo "$grammar_version" > "$grammar_dir/VERSION"
fi

# --- the corpus ----------------------------------------------------------------------------
corpus=data/raw/vllm-0.10.1
if [[ ! -d "$corpus" ]]; then
  if [[ -f ../shared/data/vllm-0.10.1.tar.gz ]]; then
    say "unpacking the vLLM v0.10.1 corpus into data/raw/"
    mkdir -p data/raw
    tar xzf ../shared/data/vllm-0.10.1.tar.gz -C data/raw
  else
    cat >&2 <<'TXT'
note: the corpus is not here. Get vLLM v0.10.1 with git and run this script again:
  mkdir -p data/raw && git clone --depth 1 --branch v0.10.1 https://github.com/vllm-project/vllm data/raw/vllm-0.10.1
TXT
    run_main_job=0
  fi
fi

# --- build ----------------------------------------------------------------------------------
say "building (release)"
cmake --preset release >/dev/null
cmake --build --preset release

if ((run_main_job)); then
  say "indexing $corpus with configs/default.yaml"
  build/release/rag index --pipeline configs/default.yaml
  say "searching"
  build/release/rag search "How do I start the OpenAI-compatible server?" --k 5
fi
