/**
 * Entry point of an engine worker thread (see shard-protocol.ts and worker-engine.ts): builds its own
 * Engine from the init message, then runs each step it is sent — cache bookkeeping first, then the
 * forward with the phases the main thread decided — writes the results into the shared buffer and
 * signals. Every failure of a step is reported through the control words, never thrown, so the main
 * thread's wait always ends.
 */
import { parentPort } from 'node:worker_threads';
import { KvCacheFullError } from './kv-cache/cache.js';
import { createBackend } from './emulate.js';
import { Engine } from './engine.js';
import { CONTROL, CONTROL_BYTES, ERROR_TEXT_BYTES, fromShardAttention, resultFloats, type InitMessage, type StepMessage } from './shard-protocol.js';

const port = parentPort;
if (!port) throw new Error('shard-worker.ts runs as a worker thread only');

let engine: Engine | null = null;
let control = new Int32Array(new SharedArrayBuffer(CONTROL_BYTES), 0, CONTROL.words);
let errorText = new Uint8Array(new SharedArrayBuffer(ERROR_TEXT_BYTES));
let results = new Float32Array(new SharedArrayBuffer(0));

function finish(step: number, status: number, started: number, message = ''): void {
  const bytes = new TextEncoder().encode(message).subarray(0, ERROR_TEXT_BYTES);
  errorText.set(bytes);
  Atomics.store(control, CONTROL.errorLength, bytes.length);
  Atomics.store(control, CONTROL.status, status);
  Atomics.store(control, CONTROL.micros, Math.round((performance.now() - started) * 1000));
  Atomics.store(control, CONTROL.done, step);
  Atomics.notify(control, CONTROL.done);
}

function runStep(m: StepMessage): void {
  const started = performance.now();
  if (m.results) results = new Float32Array(m.results);
  const e = engine!;
  try {
    for (const op of m.ops) {
      if (op.kind === 'truncate') e.rollback(op.seqId, op.len);
      else e.release(op.seqId);
    }
    const out = e.forward(m.requests, { decode: m.decode, qLenPerReq: m.qLenPerReq });
    const { vocabSize: V, hiddenSize: d } = e.model.config;
    const rows = out.reduce((n, r) => n + r.rows, 0);
    if (results.length < resultFloats(rows, V, d)) throw new Error(`result buffer too small for ${rows} rows`);
    let at = 0;
    for (const r of out) {
      results.set(r.logits, at);
      at += r.rows * V;
      results.set(r.hidden, at);
      at += r.rows * d;
    }
    finish(m.step, 0, started);
  } catch (err) {
    finish(m.step, err instanceof KvCacheFullError ? 2 : 1, started, err instanceof Error ? err.message : String(err));
  }
}

port.on('message', (m: InitMessage | StepMessage) => {
  if (m.kind === 'init') {
    control = new Int32Array(m.control, 0, CONTROL.words);
    errorText = new Uint8Array(m.control, CONTROL.words * 4, ERROR_TEXT_BYTES);
    engine = new Engine(m.model, { ...m.options, backend: createBackend(fromShardAttention(m.attention)) });
    port.postMessage({ kind: 'ready', kernels: engine.kernels });
  } else runStep(m);
});
