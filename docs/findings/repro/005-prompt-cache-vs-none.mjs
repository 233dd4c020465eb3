#!/usr/bin/env node
// Finding 005's measurement: llama-server against itself. Each prompt (the repeated sentence of
// examples/llama-cpp/prose.txt, from a random word, 64–1023 bytes, the byte vocabulary of tiny-swa)
// is generated greedily twice on the same one-slot server: first with the prompt cache on (the slot
// still holds the previous prompt, which shares a prefix), then with cache_prompt false. Prints the
// first generated token's top-5 |Δ logprob| between the two by prompt length, and where the greedy
// outputs part.
//
//   node 005-prompt-cache-vs-none.mjs URL [PROMPTS=300] [SEED=7]
import { readFileSync } from 'node:fs';

const [url = 'http://127.0.0.1:8080', count = '300', seedArg = '7'] = process.argv.slice(2);
const prose = readFileSync(new URL('../../../examples/llama-cpp/prose.txt', import.meta.url), 'utf8').trim();
const bytes = [...new TextEncoder().encode(Array(200).fill(prose).join(' '))];
const wordStarts = [0, ...[...prose].flatMap((c, i) => (c === ' ' ? [i + 1] : []))];
let seed = Number(seedArg);
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

async function greedy(prompt, cachePrompt) {
  const r = await fetch(`${url}/completion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, n_predict: 24, temperature: 0, n_probs: 5, cache_prompt: cachePrompt, return_tokens: true, ignore_eos: true }),
  });
  const j = await r.json();
  return { tokens: j.tokens, probs: j.completion_probabilities, cached: j.timings?.cache_n };
}

const rows = [];
let parted = 0;
for (let i = 0; i < Number(count); i++) {
  const start = wordStarts[Math.floor(random() * wordStarts.length)];
  const prompt = [256, ...bytes.slice(start, start + 64 + Math.floor(random() * 960))];
  const cached = await greedy(prompt, true);
  const fresh = await greedy(prompt, false);
  const lp = (p, id) => p.top_logprobs.find((x) => x.id === id)?.logprob;
  const d0 = Math.max(...cached.probs[0].top_logprobs.map((x) => Math.abs(x.logprob - (lp(fresh.probs[0], x.id) ?? x.logprob))));
  rows.push([prompt.length, d0]);
  const k = cached.tokens.findIndex((t, j) => t !== fresh.tokens[j]);
  if (k < 0) continue;
  parted++;
  const a = cached.tokens[k];
  const b = fresh.tokens[k];
  console.log(
    `prompt ${i} (${prompt.length} tokens, ${cached.cached} from the cache): parts at generated ${k}: cached ${a} (${cached.probs[k].logprob.toFixed(3)}), fresh ${b} (${fresh.probs[k].logprob.toFixed(3)}), which gives ${a} ${lp(fresh.probs[k], a)?.toFixed(3) ?? 'less than its top 5'}`,
  );
}
for (const [lo, hi] of [[0, 129], [129, 400], [400, 2000]]) {
  const ds = rows.filter(([l]) => l >= lo && l < hi).map(([, d]) => d).sort((x, y) => x - y);
  console.log(`prompts of ${lo}–${hi - 1} tokens: ${ds.length}; first token's top-5 |Δ logprob| median ${ds[ds.length >> 1]?.toExponential(2)}, 95th ${ds[Math.floor(ds.length * 0.95)]?.toExponential(2)}, max ${ds.at(-1)?.toExponential(2)}`);
}
console.log(`${parted} of ${count} prompts part between the prompt cache and none`);
