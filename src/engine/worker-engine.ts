/**
 * A StepEngine whose sequences live in a worker thread (shard-worker.ts holds a complete Engine:
 * weights copied once, its own KV cache). A step is posted (`begin`) and collected (`finish`), so the
 * caller can compute something else in between; `forward` is both. The worker's lengths are mirrored
 * here and cache bookkeeping (rollback, release) travels with the next step, so every call but a step
 * is synchronous and local. The main thread waits with Atomics.wait (the step API is synchronous).
 * Once started the thread is unref'd, so an engine nobody closes never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';
import type { AttentionPhase } from './attention/backend.js';
import { KvCacheFullError } from './kv-cache/cache.js';
import type { Model } from './model.js';
import { CONTROL, CONTROL_BYTES, ERROR_TEXT_BYTES, resultFloats, type ShardAttention, type ShardEngineOptions, type ShardOp, type StepMessage } from './shard-protocol.js';
import type { StepEngine, StepPhases, StepRequest, StepResult } from './step-engine.js';

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

/** A posted step: its requests and phases, and the lengths before it (restored if it fails). */
interface Posted {
  batch: StepRequest[];
  phases: StepPhases;
  before: number[];
}

export class WorkerEngine implements StepEngine {
  readonly numSpeculativeTokens: number;
  /** The worker's cache is sized so that it cannot run out (sharded-engine.ts). */
  readonly kvBlocks = null;
  private worker: Worker | null = null;
  private readonly control = new SharedArrayBuffer(CONTROL_BYTES);
  private readonly words = new Int32Array(this.control, 0, CONTROL.words);
  private results = new Float32Array(new SharedArrayBuffer(0));
  private step = 0;
  private posted: Posted | null = null;
  /** Mirrored lengths of the worker's sequences. */
  private readonly lengths = new Map<number, number>();
  /** Bookkeeping since the last step, sent (in order) before the next one. */
  private pendingOps: ShardOp[] = [];
  /** Resolves true when the worker has built its engine, false when it could not start. */
  readonly ready: Promise<boolean>;
  isReady = false;
  /** Set when the worker failed or was closed: it takes no more work. */
  dead = false;
  /** How long the worker computed the last collected step (ms). */
  lastStepMs = 0;

  constructor(
    readonly model: Model,
    options: ShardEngineOptions,
    attention: ShardAttention,
  ) {
    this.numSpeculativeTokens = options.numSpeculativeTokens ?? 0;
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

  get usable(): boolean {
    return this.isReady && !this.dead;
  }

  /** Sequences the worker holds. */
  get size(): number {
    return this.lengths.size;
  }

  length(seqId: number): number {
    return this.lengths.get(seqId) ?? 0;
  }

  holds(seqId: number): boolean {
    return this.lengths.has(seqId);
  }

  /** Places a new sequence on the worker (its first step creates it there). */
  adopt(seqId: number): void {
    if (!this.lengths.has(seqId)) this.lengths.set(seqId, 0);
  }

  rollback(seqId: number, len: number): void {
    const have = this.length(seqId);
    if (len > have) throw new RangeError(`truncate to ${len} > length ${have}`);
    this.lengths.set(seqId, len);
    this.pendingOps.push({ kind: 'truncate', seqId, len });
  }

  release(seqId: number): void {
    if (!this.lengths.delete(seqId)) return;
    this.pendingOps.push({ kind: 'free', seqId });
  }

  /** The MTP head runs where the hidden state is: the caller's engine (ShardedEngine) keeps it. */
  mtpStep(): null {
    return null;
  }

  forward(batch: readonly StepRequest[], phases: StepPhases): StepResult[] {
    this.begin(batch, phases);
    return this.finish();
  }

  /** Posts one step (pending bookkeeping first); finish() must follow before the next begin. */
  begin(batch: readonly StepRequest[], phases: StepPhases): void {
    if (!this.worker || this.dead) throw new Error('the engine worker thread is not running');
    if (this.posted) throw new Error('a worker step is already posted');
    const { vocabSize: V, hiddenSize: d } = this.model.config;
    const rows = batch.reduce((n, r) => n + r.tokens.length, 0);
    const need = resultFloats(rows, V, d);
    const requests = batch.map((r) => ({ seqId: r.seqId, tokens: [...r.tokens] }));
    const message: StepMessage = { kind: 'step', step: ++this.step, ops: this.pendingOps.splice(0), requests, decode: [...phases.decode], qLenPerReq: phases.qLenPerReq };
    if (this.results.length < need) {
      // grow geometrically: prefill steps vary in size
      const floats = Math.max(need, 2 * this.results.length);
      const buffer = new SharedArrayBuffer(floats * 4);
      this.results = new Float32Array(buffer);
      message.results = buffer;
    }
    this.worker.postMessage(message);
    const before = batch.map((r) => this.length(r.seqId));
    batch.forEach((r, i) => this.lengths.set(r.seqId, before[i] + r.tokens.length));
    this.posted = { batch: requests, phases, before };
  }

  /** Waits for the posted step; its results in request order (copies), or throws the worker's error (its sequences then as before the step). */
  finish(): StepResult[] {
    const posted = this.posted;
    if (!posted) throw new Error('no worker step is posted');
    this.posted = null;
    try {
      this.wait();
    } catch (e) {
      // the worker restored its cache; so does the mirror (a new sequence is forgotten again)
      posted.batch.forEach((r, i) => (posted.before[i] ? this.lengths.set(r.seqId, posted.before[i]) : this.lengths.delete(r.seqId)));
      throw e;
    }
    const { vocabSize: V, hiddenSize: d } = this.model.config;
    let at = 0;
    return posted.batch.map((r, i) => {
      const rows = r.tokens.length;
      const logits = this.results.slice(at, at + rows * V);
      at += rows * V;
      const hidden = this.results.slice(at, at + rows * d);
      at += rows * d;
      const phase: AttentionPhase = posted.phases.decode[i] ? { kind: 'decode', qLenPerReq: posted.phases.qLenPerReq } : { kind: 'prefill' };
      return { seqId: r.seqId, rows, logits, hidden, phase };
    });
  }

  private wait(): void {
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
    if (status === 0) return;
    const length = Atomics.load(this.words, CONTROL.errorLength);
    // TextDecoder does not read shared memory: copy the bytes out first
    const text = new TextDecoder().decode(new Uint8Array(this.control, CONTROL.words * 4, Math.min(length, ERROR_TEXT_BYTES)).slice());
    throw status === 2 ? new KvCacheFullError(text) : new Error(text);
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
