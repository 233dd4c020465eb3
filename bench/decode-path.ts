/**
 * Which source files one decode token runs through, counted by V8's precise coverage (call counts
 * reset, one scheduler step, the functions that ran): the engine as `engine serve` builds it
 * (src/server/build.ts: models/tiny-swa, FP8 KV from the checkpoint, reference attention, the
 * default kernel path, the worker thread started where the machine has two cores), one sequence
 * already decoding, then ONE step that turns its last token into the next through the scheduler,
 * the sampler, the model and the kernels and hands it to the request's sink. Prints the files,
 * engine and elsewhere apart. The sink here is this script's: the server's side of a token (its
 * runner's loop, the SSE chunk) is not counted.
 *
 *   node --import tsx bench/decode-path.ts
 */
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { presetSettings } from '../src/engine/emulate.js';
import { loadModel } from '../src/engine/load-model.js';
import { buildServer } from '../src/server/build.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const model = loadModel(new URL('../models/tiny-swa', import.meta.url).pathname);
const built = buildServer({
  model,
  modelId: 'tiny-swa',
  settings: { attention: presetSettings('reference'), precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, maxModelLen: 512 },
  spec: null,
  maxNumSeqs: 4,
});
const scheduler = built.runner.scheduler;
const tokens: number[] = [];
scheduler.submit({ promptIds: [256, ...Buffer.from('The sea was calm')], maxTokens: 40, ignoreEos: true, sampling: { temperature: 0, topK: 0, topP: 1 }, seed: 0 }, { onTokens: (t) => tokens.push(...t.map((x) => x.id)), onFinish: () => {} });
await built.sharded?.start(); // engine serve starts the worker thread where there are two cores
for (let i = 0; i < 8; i++) scheduler.step(); // prefill and warm decode steps

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage'); // resets the counters
const before = tokens.length;
scheduler.step();
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
if (tokens.length !== before + 1) throw new Error(`expected one token from the step, got ${tokens.length - before}`);

const files = result
  .filter((s) => s.url.startsWith('file://') && s.functions.some((f) => f.ranges.some((r) => r.count > 0)))
  .map((s) => relative(root, fileURLToPath(s.url)))
  .filter((f) => f.startsWith('src/'))
  .sort();
const engine = files.filter((f) => f.startsWith('src/engine/'));
const other = files.filter((f) => !f.startsWith('src/engine/'));
console.log(`one decode token (kernels: ${(built.engine as { kernels?: string }).kernels ?? 'sharded: this thread'}), files with code that ran:`);
console.log(`  engine (${engine.length}): ${engine.join(', ')}`);
console.log(`  elsewhere in src (${other.length}): ${other.join(', ') || '—'}`);
await built.runner.shutdown(100);
