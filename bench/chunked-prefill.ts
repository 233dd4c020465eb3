/**
 * What a step token budget with chunked prefill buys a server (engine serve's
 * --max-num-batched-tokens): inter-token latency of streams that are decoding while long prompts
 * arrive. Two servers of models/tiny-swa in this process, bound to loopback, run the same load one
 * after the other: without a budget (the anchor: a long prompt prefills in one step and every stream
 * waits for it) and with --max-num-batched-tokens BUDGET (decodes first, the prompt in chunks).
 *
 * Load: SHORT streams (12-token prompts, 96 greedy tokens each, streamed) start together; while they
 * decode, LONG requests with ~1,500-token prompts (held-out prose) and 8 tokens each arrive 150 ms apart.
 * Printed per server: gaps between a short stream's tokens p50 / p99 / max, the short streams' total
 * time, and the long requests' time to first token; then the ratios with the budget over without.
 *
 *   node --import tsx bench/chunked-prefill.ts [--budget 128] [--short 8] [--long 4]
 * Stops by itself; under a minute on a 2-core machine.
 */
import { readFileSync } from 'node:fs';
import { presetSettings } from '../src/engine/emulate.js';
import { loadModel } from '../src/engine/load-model.js';
import { buildServer } from '../src/server/build.js';
import { listen } from '../src/server/listen.js';
import { numberArg } from './args.js';
import { streamedTokenCounts } from './stream-tokens.js';

const argOf = numberArg;
const BUDGET = argOf('budget', 128);
const SHORT = argOf('short', 8);
const LONG = argOf('long', 4);
const LONG_BYTES = 1500;

const model = loadModel(new URL('../models/tiny-swa', import.meta.url).pathname);
const prose = readFileSync(new URL('../data/heldout-prose.txt', import.meta.url), 'utf8');
const longPrompt = (i: number) => prose.slice(i * 4000, i * 4000 + LONG_BYTES);

/** Streams one greedy completion; returns the arrival time (ms) of each token. */
async function stream(url: string, prompt: string, maxTokens: number): Promise<number[]> {
  const res = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, max_tokens: maxTokens, temperature: 0, ignore_eos: true, stream: true, logprobs: 0 }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const times: number[] = [];
  for await (const n of streamedTokenCounts(res)) for (let k = 0; k < n; k++) times.push(performance.now());
  return times;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(budget: number | undefined) {
  const built = buildServer({
    model,
    modelId: 'tiny-swa',
    settings: { attention: presetSettings('reference'), precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, maxModelLen: 2048 },
    spec: null,
    maxNumSeqs: SHORT + LONG,
    maxNumBatchedTokens: budget,
  });
  await built.sharded?.start();
  const server = await listen(built.app, '127.0.0.1', 0);
  try {
    await stream(server.url, 'warm up', 4);
    const t0 = performance.now();
    const shorts = Array.from({ length: SHORT }, (_, i) => stream(server.url, `The sea ${i}`, 96));
    const longs = Array.from({ length: LONG }, async (_, i) => {
      await sleep(100 + 150 * i);
      const sent = performance.now();
      const times = await stream(server.url, longPrompt(i), 8);
      return times[0] - sent;
    });
    const shortTimes = await Promise.all(shorts);
    const shortDone = performance.now() - t0;
    const ttft = await Promise.all(longs);
    const gaps = shortTimes.flatMap((ts) => ts.slice(1).map((t, i) => t - ts[i]));
    return { p50: pct(gaps, 50), p99: pct(gaps, 99), max: Math.max(...gaps), shortDone, ttft50: pct(ttft, 50), ttftMax: Math.max(...ttft) };
  } finally {
    await server.close(1000);
    await built.runner.shutdown(1000);
  }
}

console.log(`chunked-prefill bench: models/tiny-swa, ${SHORT} streams of 96 tokens decoding while ${LONG} prompts of ~${LONG_BYTES} tokens arrive (150 ms apart)`);
const without = await measure(undefined);
const withBudget = await measure(BUDGET);
console.log('server                             inter-token gap p50 / p99 / max (ms)   streams done (ms)   long TTFT p50 / max (ms)');
for (const [name, r] of [['no budget (anchor)', without], [`--max-num-batched-tokens ${BUDGET}`, withBudget]] as const)
  console.log(
    `${name.padEnd(34)} ${r.p50.toFixed(1).padStart(8)} / ${r.p99.toFixed(1).padStart(6)} / ${r.max.toFixed(1).padStart(6)}          ${r.shortDone.toFixed(0).padStart(8)}            ${r.ttft50.toFixed(0).padStart(6)} / ${r.ttftMax.toFixed(0)}`,
  );
console.log(
  `with the budget: p99 gap ${(withBudget.p99 / without.p99).toFixed(2)}×, max gap ${(withBudget.max / without.max).toFixed(2)}×, streams done ${(withBudget.shortDone / without.shortDone).toFixed(2)}×, long TTFT p50 ${(withBudget.ttft50 / without.ttft50).toFixed(2)}× the anchor's`,
);
