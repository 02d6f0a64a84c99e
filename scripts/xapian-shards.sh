#!/usr/bin/env bash
# Writes, for an index of the `xapian` retriever, one Xapian stub file per shard:
# INDEX/shard-<i>.stub lists that shard's database in every segment of the committed generation,
# in manifest order (the order the client checks with the databases' uuids). A server given the
# stub (`xapian-tcpsrv --port P --timeout 0 INDEX/shard-<i>.stub`) opens what it lists at each new
# connection, so after `rag index` and this script it serves the new generation without a restart.
# Paths in a stub are relative to it: copy INDEX's segments and stubs together (docs/scale-out.md).
# Usage: scripts/xapian-shards.sh INDEX_DIR
set -euo pipefail
if [[ $# -ne 1 || ! -f "$1/manifest.json" ]]; then
  echo "usage: scripts/xapian-shards.sh INDEX_DIR (an index folder with a manifest.json: run rag index first)" >&2
  exit 1
fi
index=$1
segments=$(grep -o '"name": "seg-[0-9]*"' "$index/manifest.json" | cut -d'"' -f4)
first=$(head -1 <<<"$segments")
shards=$(find "$index/$first/retriever" -maxdepth 1 -name 'shard-*' -type d | wc -l)
if ((shards == 0)); then
  echo "error: $index/$first/retriever has no shard-<i> folders: is this an index of the xapian retriever?" >&2
  exit 1
fi
for ((i = 0; i < shards; ++i)); do
  stub="$index/shard-$i.stub"
  sed "s|.*|glass &/retriever/shard-$i|" <<<"$segments" > "$stub.tmp"
  mv "$stub.tmp" "$stub"  # a server opening it at that moment reads the old one or the new one, whole
  echo "$stub"
done
