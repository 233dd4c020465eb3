/**
 * Prefix caching and a KV budget that runs out, on models/tiny-swa, against the same traffic with
 * prefix caching off and room to spare (the anchor, measured in the same run).
 *
 * Traffic: --families families of --per-family requests; the requests of a family share a prompt
 * prefix of --prefix tokens (then a 7–30 token suffix of their own), arrive a few steps apart, and
 * generate --tokens greedy tokens. Three configurations run it through the scheduler as `engine serve`
 * builds it (bf16 math, FP8 KV from the checkpoint, reference attention, 16-token pages, one thread):
 *   off      prefix caching off, room to spare (vLLM with --no-enable-prefix-caching);
 *   cached   prefix caching on, room to spare;
 *   tight    prefix caching on, --blocks blocks (default: a third of what the traffic needs at once),
 *            so sequences are preempted and recomputed.
 * Every request's tokens and logprobs must be the same in all three (checked; a difference fails the
 * bench). Rounds alternate the configurations so the neighbours' load hits all alike; each figure is
 * the median over --rounds rounds; the load average is printed beside it. The last line:
 *   prefix-cache: prefill tokens cached/off C/O (ratio R), wall cached/off X (tight: P preemptions, Y)
 *
 *   node --import tsx bench/prefix-cache.ts [--rounds 5 --families 4 --per-family 4 --prefix 96 --tokens 24]
 */
import { loadavg } from 'node:os';
import { createReferenceBackend } from '../src/engine/attention/reference-backend.js';
import { Engine } from '../src/engine/engine.js';
import { loadModel } from '../src/engine/load-model.js';
import { GREEDY } from '../src/engine/sampling.js';
import { Scheduler } from '../src/engine/scheduler.js';
import type { EmittedToken } from '../src/engine/sequence.js';
import { numberArg } from './args.js';

const ROUNDS = numberArg('rounds', 5);
const FAMILIES = numberArg('families', 4);
const PER_FAMILY = numberArg('per-family', 4);
const PREFIX = numberArg('prefix', 96);
const TOKENS = numberArg('tokens', 24);

const model = loadModel(new URL('../models/tiny-swa', import.meta.url).pathname);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Deterministic printable-byte token ids (the byte tokenizer), after BOS. */
const ids = (seed: number, n: number) => Array.from({ length: n }, (_, i) => 32 + ((seed * 7919 + i * 31 + ((i * i) % 13)) % 95));
const prompts = Array.from({ length: FAMILIES }, (_, f) => Array.from({ length: PER_FAMILY }, (_, r) => [256, ...ids(f + 1, PREFIX), ...ids(100 + f * PER_FAMILY + r, 7 + ((r * 9) % 24))])).flat();
const blocksAtOnce = prompts.reduce((n, p) => n + Math.ceil((p.length + TOKENS) / 16), 0);
const TIGHT = numberArg('blocks', Math.max(Math.ceil((PREFIX + 31 + TOKENS) / 16), Math.ceil(blocksAtOnce / 3)));

interface Outcome {
  ms: number;
  prefillTokens: number;
  preemptions: number;
  outputs: EmittedToken[][];
}

function run(prefixCaching: boolean, numBlocks: number | undefined): Outcome {
  const engine = new Engine(model, { precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend(), prefixCaching, numBlocks });
  const s = new Scheduler(engine, { spec: null, maxNumSeqs: 16, maxModelLen: model.config.maxPositions });
  const outputs: EmittedToken[][] = prompts.map(() => []);
  const t0 = performance.now();
  prompts.forEach((p, i) => {
    s.submit({ promptIds: p, maxTokens: TOKENS, sampling: GREEDY, seed: 0, ignoreEos: true, logprobs: 1 }, { onTokens: (t) => outputs[i].push(...t), onFinish: () => {} });
    if (i % 2 === 1) s.step(); // arrivals two per step
  });
  s.runToCompletion();
  return { ms: performance.now() - t0, prefillTokens: s.counters.promptTokens, preemptions: s.counters.preemptions, outputs };
}

const configs = { off: [false, undefined], cached: [true, undefined], tight: [true, TIGHT] } as const;
const results: Record<keyof typeof configs, Outcome[]> = { off: [], cached: [], tight: [] };
console.log(`${prompts.length} requests, ${FAMILIES} families sharing ${PREFIX}-token prefixes, ${TOKENS} tokens each; tight budget ${TIGHT} blocks (${blocksAtOnce} needed at once)`);
for (let r = 0; r < ROUNDS; r++)
  for (const name of Object.keys(configs) as (keyof typeof configs)[]) {
    const [pc, nb] = configs[name];
    const o = run(pc, nb);
    results[name].push(o);
    console.log(`round ${r + 1} ${name.padEnd(6)} ${o.ms.toFixed(0).padStart(6)} ms  prefill ${o.prefillTokens} tokens  preemptions ${o.preemptions}  (load ${load()})`);
  }

const reference = JSON.stringify(results.off[0].outputs);
for (const [name, list] of Object.entries(results))
  for (const o of list)
    if (JSON.stringify(o.outputs) !== reference) {
      console.error(`FAIL: ${name} gave different tokens or logprobs than prefix caching off`);
      process.exit(1);
    }
const ms = (n: keyof typeof configs) => median(results[n].map((o) => o.ms));
const prefill = (n: keyof typeof configs) => median(results[n].map((o) => o.prefillTokens));
console.log('every configuration gave every request the same tokens and logprobs');
console.log(
  `prefix-cache: prefill tokens cached/off ${prefill('cached')}/${prefill('off')} (ratio ${(prefill('cached') / prefill('off')).toFixed(2)}), wall cached/off ${(ms('cached') / ms('off')).toFixed(2)} ` +
    `(tight: ${median(results.tight.map((o) => o.preemptions))} preemptions, wall ${(ms('tight') / ms('off')).toFixed(2)}) (load ${load()})`,
);
