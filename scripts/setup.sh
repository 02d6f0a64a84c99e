#!/usr/bin/env bash
# One-time set-up on Debian 12, then the main job: installs the Debian packages, fetches the
# tree-sitter runtime's source from Debian's archive and the grammars (python, cpp) and the page test's
# browser driver from npm, unpacks the vLLM corpus, builds in release mode,
# indexes the corpus with the default pipeline and runs one search.
#   scripts/setup.sh            everything, ending with the main job
#   scripts/setup.sh --no-run   everything but the main job (what the tests need)
set -euo pipefail
cd "$(dirname "$0")/.."

run_main_job=1
[[ "${1:-}" == "--no-run" ]] && run_main_job=0

say() { printf '==> %s\n' "$*" >&2; }

# --- Debian packages ---------------------------------------------------------------------
packages=(build-essential cmake ninja-build pkg-config git openssl ca-certificates curl xz-utils
  libboost-dev libboost-program-options-dev libyaml-cpp-dev libmd4c-dev
  libstemmer-dev nlohmann-json3-dev libcpp-httplib-dev libtbb-dev libgtest-dev libgmock-dev
  libbenchmark-dev zlib1g-dev libicu-dev libxxhash-dev
  libxapian-dev xapian-tools  # the xapian retriever and its servers (xapian-tcpsrv, xapian-progsrv)
  jq  # bench/scale-out.sh reads JSON lines with it
  chromium  # the page's browser test
  # bilingual dictionaries for questions in other languages (configs/default.yaml: translation)
  dict-freedict-fra-eng dict-freedict-eng-fra dict-freedict-deu-eng dict-freedict-spa-eng dict-freedict-eng-spa
  dict-freedict-eng-rus mueller7-dict
  wamerican)  # English words, so that a typo the corpus lacks is told from a word it lacks (core/include/rag/spelling.hpp)
source scripts/debian.sh
command -v npm >/dev/null || packages+=(npm)  # keep a Node.js the machine already has
ensure_debian_packages "${packages[@]}"

downloads=$(mktemp -d)
trap 'rm -rf "$downloads"' EXIT

# --- the tree-sitter runtime: Debian's own source of the version Debian 12 ships ----------------
# Built here as one unit with its symbols hidden (plugins/chunkers/tree_sitter/CMakeLists.txt):
# Debian's libtree-sitter0 is compiled file by file into a shared library, whose calls between its
# own files can be neither inlined nor bound directly; parsing, the better part of indexing, takes
# 13% less time built this way (bench/parse_benchmark.cpp). Same version, no patch, same trees.
# Checked against the sha256 that Debian's tree-sitter_0.20.7-1.dsc gives.
tree_sitter_version=0.20.7
if [[ "$(cat .deps/tree-sitter/VERSION 2>/dev/null)" != "$tree_sitter_version" ]]; then
  say "fetching the tree-sitter $tree_sitter_version runtime's source from Debian"
  tarball=$downloads/tree-sitter.orig.tar.xz
  curl -fsSL --retry 3 -o "$tarball" \
    "https://deb.debian.org/debian/pool/main/t/tree-sitter/tree-sitter_$tree_sitter_version.orig.tar.xz"
  if ! echo "e8c0573be475dce5b024d83628a3eb47376923da701376e55a11804cc5d25487  $tarball" | sha256sum --check --quiet -; then
    echo "error: tree-sitter_$tree_sitter_version.orig.tar.xz failed its integrity check" >&2
    exit 1
  fi
  rm -rf .deps/tree-sitter && mkdir -p .deps/tree-sitter
  tar xJf "$tarball" -C .deps/tree-sitter --strip-components=1 \
    "tree-sitter-$tree_sitter_version/lib/src" "tree-sitter-$tree_sitter_version/lib/include" \
    "tree-sitter-$tree_sitter_version/LICENSE"
  echo "$tree_sitter_version" > .deps/tree-sitter/VERSION
fi

# --- npm packages: the tree-sitter grammars' C sources, the page test's browser driver ---------
# fetch_npm_package NAME VERSION SHA512 [MEMBER...]: the npm package NAME@VERSION, checked against
# its pinned sha512 (the registry's dist.integrity), unpacked into .deps/NAME (only MEMBERs of it
# when given) with a VERSION file. Never committed; no install script of the package is run.
# The tree-sitter runtime (0.20.7) reads grammars of ABI 13 and 14 only: a newer grammar
# must keep `#define LANGUAGE_VERSION 14` in its src/parser.c.
fetch_npm_package() {
  local name=$1 version=$2 sha512=$3
  shift 3
  local dir=.deps/$name
  [[ "$(cat "$dir/VERSION" 2>/dev/null)" == "$version" ]] && return 0
  say "fetching $name@$version from npm"
  (cd "$downloads" && npm pack --silent "$name@$version" >/dev/null)
  local tarball="$downloads/$name-$version.tgz" actual
  actual=$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
  if [[ "$actual" != "$sha512" ]]; then
    echo "error: $name-$version.tgz failed its integrity check (sha512 $actual)" >&2
    exit 1
  fi
  local members=("${@/#/package/}")
  ((${#members[@]})) || members=(package)
  rm -rf "$dir" && mkdir -p "$dir"
  tar xzf "$tarball" -C "$dir" --strip-components=1 "${members[@]}"
  echo "$version" > "$dir/VERSION"
}
fetch_npm_package tree-sitter-python 0.23.6 \
  'yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A==' src LICENSE
fetch_npm_package tree-sitter-cpp 0.23.4 \
  'qR5qUDyhZ5jJ6V8/umiBxokRbe89bCGmcq/dk94wI4kN86qfdV8k0GHIUEKaqWgcu42wKal5E97LKpLeVW8sKw==' src LICENSE
# Drives Debian's Chromium in the page's browser test (tests/browser/); it has no dependencies, and
# 1.61 is the newest that runs on Debian 12's Node.js 18.
fetch_npm_package playwright-core 1.61.0 \
  'caX7TrY3Ml6egyDX0WUcTHDxodl/b51y5wJOdCEA36QviK/s2g081hvmGs8eaE3DWb6NYZQ6BjO/QkNRPenoPA=='

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
