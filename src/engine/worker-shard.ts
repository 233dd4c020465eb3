/**
 * The main thread's handle on one engine worker thread (shard-worker.ts): start it, post a step, wait
 * for it (Atomics.wait: Engine.forward is synchronous), terminate it. Once started the thread is
 * unref'd, so an engine nobody closes never keeps the process alive; close() terminates it (server
 * shutdown).
 */
import { Worker } from 'node:worker_threads';
import { KvCacheFullError } from './kv-cache/cache.js';
import type { Model } from './model.js';
import { CONTROL, CONTROL_BYTES, ERROR_TEXT_BYTES, resultFloats, type ShardAttention, type ShardEngineOptions, type ShardOp, type StepMessage } from './shard-protocol.js';

/** How long a step may take before the worker is declared dead (a step is milliseconds to seconds). */
const STEP_TIMEOUT_MS = 120_000;

/** The worker's entry: the compiled .js next to this file, or under tsx (a source checkout) the .ts with the loader registered in the thread. */
function spawn(): Worker {
  const source = import.meta.url.endsWith('.ts');
  const entry = new URL(source ? './shard-worker.ts' : './shard-worker.js', import.meta.url);
  if (!source) return new Worker(entry);
  const code = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
}

export interface ShardResult {
  logits: Float32Array;
  hidden: Float32Array;
}

export class WorkerShard {
  private worker: Worker | null = null;
  private readonly control = new SharedArrayBuffer(CONTROL_BYTES);
  private readonly words = new Int32Array(this.control, 0, CONTROL.words);
  private results = new Float32Array(new SharedArrayBuffer(0));
  private step = 0;
  /** Resolves true when the worker has built its engine, false when it could not start. */
  readonly ready: Promise<boolean>;
  isReady = false;
  /** Set when the worker failed or was closed: it takes no more work. */
  dead = false;
  /** How long the worker computed the last collected step (ms). */
  lastStepMs = 0;

  constructor(model: Model, options: ShardEngineOptions, attention: ShardAttention) {
    this.ready = new Promise<boolean>((resolve) => {
      let w: Worker;
      try {
        w = spawn();
      } catch {
        this.dead = true;
        return resolve(false);
      }
      this.worker = w;
      w.on('message', (m: { kind: string }) => {
        if (m.kind !== 'ready') return;
        this.isReady = !this.dead;
        // from now on an idle worker never keeps the process alive (during start-up it does, so that
        // awaiting `ready` works; unref after the listeners: adding one refs the thread again)
        w.unref();
        resolve(this.isReady);
      });
      w.on('error', (e) => {
        process.stderr.write(`engine: worker thread failed: ${e.message}\n`);
        this.dead = true;
        this.isReady = false;
        resolve(false);
      });
      w.on('exit', () => {
        this.dead = true;
        this.isReady = false;
        resolve(false);
      });
      w.postMessage({ kind: 'init', model, options, attention, control: this.control });
    });
  }

  /** Posts one step (ops first, then the requests); collect() must follow before the next post. */
  post(ops: ShardOp[], requests: { seqId: number; tokens: number[] }[], decode: boolean[], qLenPerReq: number, vocabSize: number, hiddenSize: number): void {
    if (!this.worker || this.dead) throw new Error('the engine worker thread is not running');
    const rows = requests.reduce((n, r) => n + r.tokens.length, 0);
    const need = resultFloats(rows, vocabSize, hiddenSize);
    const message: StepMessage = { kind: 'step', step: ++this.step, ops, requests, decode, qLenPerReq };
    if (this.results.length < need) {
      // grow geometrically: prefill steps vary in size
      const floats = Math.max(need, 2 * this.results.length);
      const buffer = new SharedArrayBuffer(floats * 4);
      this.results = new Float32Array(buffer);
      message.results = buffer;
    }
    this.worker.postMessage(message);
  }

  /** Waits for the posted step; its results in request order (copies), or throws the worker's error. */
  collect(rowsPerRequest: number[], vocabSize: number, hiddenSize: number): ShardResult[] {
    const started = Date.now();
    while (Atomics.load(this.words, CONTROL.done) !== this.step) {
      if (Date.now() - started > STEP_TIMEOUT_MS) {
        this.dead = true;
        void this.worker?.terminate();
        throw new Error(`the engine worker thread did not finish a step in ${STEP_TIMEOUT_MS / 1000} s`);
      }
      Atomics.wait(this.words, CONTROL.done, Atomics.load(this.words, CONTROL.done), 1000);
    }
    this.lastStepMs = Atomics.load(this.words, CONTROL.micros) / 1000;
    const status = Atomics.load(this.words, CONTROL.status);
    if (status !== 0) {
      const length = Atomics.load(this.words, CONTROL.errorLength);
      // TextDecoder does not read shared memory: copy the bytes out first
      const text = new TextDecoder().decode(new Uint8Array(this.control, CONTROL.words * 4, Math.min(length, ERROR_TEXT_BYTES)).slice());
      throw status === 2 ? new KvCacheFullError(text) : new Error(text);
    }
    const out: ShardResult[] = [];
    let at = 0;
    for (const rows of rowsPerRequest) {
      const logits = this.results.slice(at, at + rows * vocabSize);
      at += rows * vocabSize;
      const hidden = this.results.slice(at, at + rows * hiddenSize);
      at += rows * hiddenSize;
      out.push({ logits, hidden });
    }
    return out;
  }

  /** Terminates the thread (idempotent). */
  async close(): Promise<void> {
    this.dead = true;
    this.isReady = false;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
