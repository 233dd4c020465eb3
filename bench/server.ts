/**
 * The engine server under load, on loopback only, models/tiny-swa, greedy streaming completions sent
 * with fetch.
 *
 *  1. Throughput against the anchor: `faultline engine serve` of this checkout and of the tree before
 *     the execution-layer redesign (--before, default commit cac2eb8: WebAssembly matmuls, the
 *     scheduler's prefetch), each a child process on 127.0.0.1 started from source the same way
 *     (bench/tree-server.ts), measured alternately in --rounds rounds: per round and server, 1 stream
 *     (requests one after another) then 16 concurrent streams. Aggregate generated tokens/s, medians
 *     over the rounds, the load average beside them; per-request latency p50 / p99 and time to first
 *     token. The last throughput line is the verdict: this checkout's figures beside the anchor's.
 *     --after REF measures a commit instead of this checkout (e.g. a change and its parent).
 *  2. The engine alone (in this process, no HTTP, no scheduler) decoding 1 and 16 sequences: its
 *     ratio is what batching itself gains on this CPU, the ceiling the server's ratio is read against.
 *  3. Memory (this checkout's server in this process): 1,000 short requests (streamed, non-streamed,
 *     and some cancelled mid-stream), 8 at a time; heap after a forced GC every 250 requests. Growth
 *     after the first 250 should be ~0.
 *
 * The engine runs on two threads where the machine has two cores (src/engine/sharded-engine.ts).
 *
 *   npm run bench:server [-- --tokens 64 --requests 32 --rounds 3 --before cac2eb8 --memory-requests 1000]
 * Stops by itself (bounded request counts); a few minutes on a 2-core machine.
 */
import { loadavg } from 'node:os';
import { presetSettings } from '../src/engine/emulate.js';
import { argmax } from '../src/engine/sampling.js';
import { loadModel } from '../src/engine/load-model.js';
import { buildServer } from '../src/server/build.js';
import { listen } from '../src/server/listen.js';
import { numberArg, stringArg } from './args.js';
import { streamedTokenCounts } from './stream-tokens.js';
import { startTreeServer, type TreeServer } from './tree-server.js';

const argOf = numberArg;
const TOKENS = argOf('tokens', 64);
const REQUESTS = argOf('requests', 32); // per concurrency level and round
const ROUNDS = argOf('rounds', 3);
const MEMORY_REQUESTS = argOf('memory-requests', 1000);
const BEFORE = stringArg('before', 'cac2eb8');
const AFTER = stringArg('after', '') || null;
const gc = (globalThis as { gc?: () => void }).gc;

const model = loadModel(new URL('../models/tiny-swa', import.meta.url).pathname);
const built = buildServer({
  model,
  modelId: 'tiny-swa',
  settings: { attention: presetSettings('reference'), precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, maxModelLen: 2048 },
  spec: null,
  maxNumSeqs: 16,
});
const threads = (await built.sharded?.start()) ? 2 : 1; // the worker thread is ready before anything is measured
const server = await listen(built.app, '127.0.0.1', 0);
/** The flags both measured servers get: the in-process server's settings. */
const SERVE_FLAGS = ['--model', new URL('../models/tiny-swa', import.meta.url).pathname, '--kv-cache-dtype', 'fp8_e4m3', '--block-size', '16', '--max-num-seqs', '16', '--max-model-len', '2048'];
const words = ['The whale', 'It was', 'Congress', 'The ship', 'In the year', 'Upon the deck', 'Our country', 'The sea'];

interface Timing {
  tokens: number;
  latency: number;
  ttft: number;
}

/** One streamed greedy completion; returns tokens received and timings (ms). */
async function streamOnce(i: number, maxTokens: number, cancelAfter?: number, url = server.url): Promise<Timing> {
  const t0 = performance.now();
  const ac = new AbortController();
  const res = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: `${words[i % words.length]} ${i}`, max_tokens: maxTokens, temperature: 0, ignore_eos: true, stream: true, logprobs: 0 }),
    signal: ac.signal,
  });
  let tokens = 0, ttft = -1;
  try {
    for await (const n of streamedTokenCounts(res)) {
      if (n && ttft < 0) ttft = performance.now() - t0;
      tokens += n;
      if (cancelAfter !== undefined && tokens >= cancelAfter) {
        ac.abort();
        break;
      }
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  }
  return { tokens, latency: performance.now() - t0, ttft };
}

async function plainOnce(i: number): Promise<void> {
  const res = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: `${words[i % words.length]} ${i}`, max_tokens: 8, temperature: 0, ignore_eos: true }),
  });
  await res.json();
}

/** `total` requests spread over `concurrency` workers; aggregate tokens/s and per-request timings. */
async function load(url: string, concurrency: number, total: number, maxTokens: number) {
  const timings: Timing[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) timings.push(await streamOnce(next++, maxTokens, undefined, url));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const tokens = timings.reduce((n, t) => n + t.tokens, 0);
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  const lat = timings.map((t) => t.latency), ttft = timings.map((t) => t.ttft);
  return { tps: tokens / seconds, tokens, seconds, p50: pct(lat, 50), p99: pct(lat, 99), ttft50: pct(ttft, 50), ttft99: pct(ttft, 99) };
}

/**
 * The engine alone, no HTTP and no scheduler: greedy decode tokens/s of `n` sequences stepped together
 * (prefill of a short prompt each, then `steps` one-token steps), best of three. Its 16-vs-1 ratio is
 * what batching itself gains on this machine: the ceiling for the server's ratio.
 */
function engineAlone(n: number, steps: number): number {
  const V = model.config.vocabSize;
  const prompt = (i: number) => [model.config.bosTokenId, ...Buffer.from(`${words[i % words.length]} ${i}`)];
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const ids = Array.from({ length: n }, (_, i) => 1_000_000 + round * 100 + i); // clear of the scheduler's ids
    let batch = ids.map((seqId, i) => ({ seqId, tokens: prompt(i) }));
    const next = (rs: ReturnType<typeof built.engine.forward>) => rs.map((r) => ({ seqId: r.seqId, tokens: [argmax(r.logits.subarray((r.rows - 1) * V, r.rows * V))] }));
    batch = next(built.engine.forward(batch));
    const t0 = performance.now();
    for (let s = 0; s < steps; s++) batch = next(built.engine.forward(batch));
    best = Math.max(best, (n * steps) / ((performance.now() - t0) / 1000));
    for (const id of ids) built.engine.release(id);
  }
  return best;
}

const load1 = () => loadavg()[0];
const median = <T,>(xs: T[], key: (x: T) => number): T => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];
const servers: TreeServer[] = [await startTreeServer(BEFORE, SERVE_FLAGS), await startTreeServer(AFTER, SERVE_FLAGS)];
console.log(`server bench: models/tiny-swa, greedy streaming, ${TOKENS} tokens per request, ${REQUESTS} requests per level, engine threads ${threads}`);
for (const [k, s] of servers.entries()) console.log(`  ${k === 0 ? 'anchor' : 'measured'}: ${s.label} at ${s.url}`);
for (const s of servers) await load(s.url, 2, 4, 8); // warm-up
// servers and levels alternate, ROUNDS times: a neighbour's job on the shared cores hits all alike
const levels = [1, 16];
type Load = Awaited<ReturnType<typeof load>> & { load: number };
const rounds: Load[][][] = servers.map(() => levels.map(() => []));
for (let round = 0; round < ROUNDS; round++)
  for (const [si, s] of servers.entries()) for (const [k, c] of levels.entries()) rounds[si][k].push({ ...(await load(s.url, c, REQUESTS, TOKENS)), load: load1() });
const results = rounds.map((perLevel) => perLevel.map((rs, k) => ({ c: levels[k], ...median(rs, (r) => r.tps) })));
console.log(`server                 streams  agg tok/s   ratio   latency p50 / p99 (ms)   ttft p50 / p99 (ms)   (median of ${ROUNDS} rounds; every round's tok/s @ load)`);
for (const [si, perLevel] of results.entries())
  for (const [k, r] of perLevel.entries())
    console.log(
      `${(si === 0 ? 'anchor' : 'measured').padEnd(21)}  ${String(r.c).padStart(7)}  ${r.tps.toFixed(1).padStart(9)}  ${(r.tps / perLevel[0].tps).toFixed(2).padStart(5)}×  ${r.p50.toFixed(0).padStart(9)} / ${r.p99.toFixed(0).padEnd(9)}  ${r.ttft50.toFixed(0).padStart(9)} / ${r.ttft99.toFixed(0).padEnd(9)}   ${rounds[si][k].map((x) => `${x.tps.toFixed(0)}@${x.load.toFixed(1)}`).join(' ')}`,
    );
for (const s of servers) await s.close();
const [before, now] = results;
const ratio = now[1].tps / now[0].tps;
const loads = rounds.flat(2).map((r) => r.load);
console.log(
  `server: 1 stream ${now[0].tps.toFixed(0)} tok/s (before the redesign ${before[0].tps.toFixed(0)}: ${(now[0].tps / before[0].tps).toFixed(2)}×), ` +
    `16 streams ${now[1].tps.toFixed(0)} tok/s (before ${before[1].tps.toFixed(0)}: ${(now[1].tps / before[1].tps).toFixed(2)}×) ` +
    `(load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; anchor ${servers[0].label})`,
);
const alone = { one: engineAlone(1, TOKENS), many: engineAlone(16, TOKENS) };
const ceiling = alone.many / alone.one;
console.log(
  `engine alone (same engine, no HTTP): 1 sequence ${alone.one.toFixed(0)} tok/s, 16 sequences ${alone.many.toFixed(0)} tok/s → ${ceiling.toFixed(2)}×: ` +
    `what batching itself gains on this machine (the server's ${ratio.toFixed(2)}× adds HTTP and scheduling, the same per token at both levels)`,
);
console.log(`16-stream aggregate throughput ≥ 4× one stream: ${ratio >= 4 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}×)`);

// ---- memory over many requests ---------------------------------------------------------------
if (!gc) console.log('memory: run with node --expose-gc for heap figures after a forced GC (npm run bench:server does)');
const mb = (n: number) => (n / 2 ** 20).toFixed(2);
const marks: { after: number; heap: number; rss: number }[] = [];
let done = 0;
let nextMem = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (nextMem < MEMORY_REQUESTS) {
      const i = nextMem++;
      if (i % 3 === 0) await plainOnce(i);
      else if (i % 3 === 1) await streamOnce(i, 8);
      else await streamOnce(i, 64, 2); // cancelled after two tokens
      done++;
      if (done % 250 === 0) {
        gc?.();
        const m = process.memoryUsage();
        marks.push({ after: done, heap: m.heapUsed, rss: m.rss });
      }
    }
  }),
);
await built.runner.whenIdle();
gc?.();
const end = process.memoryUsage();
console.log(`memory over ${MEMORY_REQUESTS} requests (8 concurrent; streamed, non-streamed, cancelled):`);
for (const m of marks) console.log(`  after ${String(m.after).padStart(5)}: heap ${mb(m.heap)} MiB, rss ${mb(m.rss)} MiB`);
const perThread = built.sharded?.counts() ?? { here: 0, worker: 0 };
console.log(
  `  idle at end: heap ${mb(end.heapUsed)} MiB, rss ${mb(end.rss)} MiB (both threads); sequences left in the scheduler: ${built.runner.scheduler.numRunning + built.runner.scheduler.numWaiting}, in the engine: ${perThread.here} here, ${perThread.worker} in the worker thread`,
);
if (marks.length >= 2) {
  const growth = end.heapUsed - marks[0].heap;
  console.log(`heap growth after the first 250 requests: ${mb(growth)} MiB (${growth < 4 * 2 ** 20 ? 'no growth beyond noise' : 'GROWTH'})`);
}
const metrics = await (await fetch(`${server.url}/metrics`)).text();
console.log(metrics.split('\n').filter((l) => /^vllm:request_success_total|^vllm:num_requests/.test(l)).join('\n'));
await server.close(1000);
await built.runner.shutdown(1000);
