#!/usr/bin/env python3
"""Writes the public datasets with each question word expanded by its fastText neighbours.

The neighbours come from vectors trained on the corpus itself (bench/fasttext_expansion.sh):
each content word of a question gains its nearest corpus words whose cosine is at least
--min-cosine, except its own inflections (a neighbour sharing its first five letters), appended to
the question. Usage: bench/fasttext_expansion.py VECTORS.bin OUT_DIR --min-cosine 0.8 DATASETS...
"""
import argparse
import json
import os
import re
import subprocess

STOP = set("a an the of to in on for and or is are was were be been do does did how what which who whom why where "
           "when can could should would will i we you it its this that these those with by from as at my our your "
           "their there here into about than then so if not no yes use used using vllm".split())


def words(text):
    """Lower-cased words, identifiers cut at '_' and at lower-to-upper case changes."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)]


def neighbours(vectors, vocabulary, count):
    """{word: [(neighbour, cosine), ...]} from `fasttext nn`, one query per line."""
    out = subprocess.run(["fasttext", "nn", vectors, str(count)], input="\n".join(vocabulary) + "\n",
                         capture_output=True, text=True, check=True).stdout
    blocks = out.split("Query word? ")[1:]
    return {w: [(x[0], float(x[1])) for x in (line.split() for line in b.splitlines()) if len(x) == 2]
            for w, b in zip(vocabulary, blocks)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vectors")
    parser.add_argument("out_dir")
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--min-cosine", type=float, default=0.8)
    parser.add_argument("--neighbours", type=int, default=3)
    args = parser.parse_args()
    data = {path: json.load(open(path)) for path in args.datasets}
    vocabulary = sorted({w for d in data.values() for q in d["rag_questions"] for w in words(q["question"])} - STOP)
    near = neighbours(args.vectors, vocabulary, args.neighbours)
    os.makedirs(args.out_dir, exist_ok=True)
    for path, dataset in data.items():
        for q in dataset["rag_questions"]:
            extra = []
            for w in words(q["question"]):
                for n, cosine in near.get(w, []):
                    if w not in STOP and cosine >= args.min_cosine and n[:5] != w[:5] and n not in extra:
                        extra.append(n)
            q["question"] += " " + " ".join(extra)
        json.dump(dataset, open(os.path.join(args.out_dir, os.path.basename(path)), "w"))


if __name__ == "__main__":
    main()
