/**
 * A StepEngine over two engines: an Engine on this thread and a WorkerEngine (a second copy of the
 * engine in a worker thread). Each sequence is placed on one of them at its first step and stays
 * there (its KV cache lives there); a step posts the worker's part, computes this thread's part
 * meanwhile, then collects. Rows never interact (batch invariance) and the phases are decided over
 * the whole step before it is split, so every result is bit-identical to one Engine.
 *
 * Placement: new sequences go to the worker in the proportion that lets both parts finish together,
 * estimated after every step that used both from the measured time per row on each side; the first
 * sequence always stays here, so a lone request runs exactly as on one thread. Undo: when either part
 * fails, the other part's sequences are rolled back to their lengths before the step, so a failed
 * step leaves every sequence as it was.
 */
import { validateStep, type Engine } from './engine.js';
import { toShardAttention, type ShardAttention, type ShardEngineOptions } from './shard-protocol.js';
import type { AttentionSettings } from './emulate.js';
import type { StepEngine, StepPhases, StepRequest, StepResult } from './step-engine.js';
import { WorkerEngine } from './worker-engine.js';

/** Bounds of the worker's share of the sequences, and the weight of one step's estimate in it. */
const SHARE_MIN = 0.1,
  SHARE_MAX = 0.9,
  SHARE_SMOOTHING = 0.2;

export class ShardedEngine implements StepEngine {
  private remote: WorkerEngine | null = null;
  private readonly shardOptions: ShardEngineOptions;
  private readonly shardAttention: ShardAttention;
  /** This thread's sequences (the worker's are those it holds). */
  private readonly local = new Set<number>();
  /** Target fraction of live sequences on the worker. */
  private share = 0.5;

  /**
   * `attention`: the settings the local engine's backend was built from (the worker builds its own).
   * Throws when the worker could not rebuild the engine (batch-variant numerics follow the whole
   * step's row count; a fault model that is not a known one): use the Engine alone then.
   */
  constructor(
    private readonly here: Engine,
    attention: AttentionSettings,
  ) {
    const shard = toShardAttention(attention);
    if (!shard || !ShardedEngine.supports(here, attention)) throw new RangeError('this engine cannot be sharded (batch-variant numerics, a custom fault model, prefix caching or a stateful fault model)');
    const { backend: _backend, ...options } = here.options;
    this.shardOptions = options;
    this.shardAttention = shard;
  }

  /**
   * Whether `here` and `attention` allow a worker (else build the Engine alone). Prefix caching and
   * stateful fault models need one block manager over every sequence's blocks, so they stay on one thread.
   */
  static supports(here: Engine, attention: AttentionSettings): boolean {
    return toShardAttention(attention) !== null && !here.options.batchVariantNumerics && !here.options.prefixCaching && !here.options.stateFaults?.size;
  }

  /** Both threads' caches are sized so that they cannot run out, and cache no prefixes: nothing for the scheduler to manage. */
  readonly kvBlocks = null;

  get model() {
    return this.here.model;
  }

  get numSpeculativeTokens(): number {
    return this.here.numSpeculativeTokens;
  }

  /** Starts the worker (idempotent); resolves true once it takes work. Steps never wait for it: until then every sequence runs here. */
  start(): Promise<boolean> {
    this.remote ??= new WorkerEngine(this.here.model, this.shardOptions, this.shardAttention);
    return this.remote.ready;
  }

  /** Live sequences on this thread and in the worker (tests and metrics). */
  counts(): { here: number; worker: number } {
    return { here: this.local.size, worker: this.remote?.size ?? 0 };
  }

  /** Where a sequence lives; a sequence of this thread is answered from `local`, without asking the worker. */
  private owner(seqId: number): StepEngine {
    return !this.local.has(seqId) && this.remote?.holds(seqId) ? this.remote : this.here;
  }

  length(seqId: number): number {
    return this.owner(seqId).length(seqId);
  }

  rollback(seqId: number, len: number): void {
    this.owner(seqId).rollback(seqId, len);
  }

  release(seqId: number): void {
    this.owner(seqId).release(seqId);
    this.local.delete(seqId);
  }

  mtpStep(hidden: Float32Array, nextToken: number): { logits: Float32Array; g: Float32Array } | null {
    return this.here.mtpStep(hidden, nextToken);
  }

  async close(): Promise<void> {
    await this.remote?.close();
  }

  forward(batch: readonly StepRequest[], phases: StepPhases = this.here.phases(batch)): StepResult[] {
    validateStep(this.model, batch, (seqId) => this.length(seqId));
    if (batch.length >= 2 && !this.remote) void this.start();
    const remote = this.remote;
    this.place(batch, remote);
    // placed: every sequence of the step is this thread's or the worker's
    const there = batch.flatMap((r, i) => (this.local.has(r.seqId) ? [] : [i]));
    if (!remote || !there.length) return this.here.forward(batch, phases);
    if (!remote.usable) throw new Error('the engine worker thread stopped; its sequences cannot continue');
    const mine = batch.flatMap((_, i) => (there.includes(i) ? [] : [i]));
    const part = (idx: number[]) => ({ batch: idx.map((i) => batch[i]), phases: { decode: idx.map((i) => phases.decode[i]), qLenPerReq: phases.qLenPerReq } });
    const before = batch.map((r) => this.length(r.seqId));
    const theirs = part(there);
    remote.begin(theirs.batch, theirs.phases);
    let ours: StepResult[];
    const t0 = performance.now();
    try {
      ours = mine.length ? this.here.forward(part(mine).batch, part(mine).phases) : [];
    } catch (e) {
      this.undo(remote, there, batch, before);
      throw e;
    }
    const hereMs = performance.now() - t0;
    let results: StepResult[];
    try {
      results = remote.finish();
    } catch (e) {
      for (const i of mine) this.here.rollback(batch[i].seqId, before[i]);
      throw e;
    }
    if (mine.length) this.balance(rows(batch, mine), rows(batch, there), hereMs, remote.lastStepMs);
    const out: StepResult[] = new Array(batch.length);
    mine.forEach((i, k) => (out[i] = ours[k]));
    there.forEach((i, k) => (out[i] = results[k]));
    return out;
  }

  /** This thread's part failed: wait for the worker's, then roll its sequences back (their bookkeeping goes with the next step). */
  private undo(remote: WorkerEngine, there: number[], batch: readonly StepRequest[], before: number[]): void {
    try {
      remote.finish();
    } catch {
      return; // the worker's part failed too and left its sequences as they were
    }
    for (const i of there) remote.rollback(batch[i].seqId, before[i]);
  }

  /**
   * New sequences: to the worker while it holds less than its share and takes work (never a sequence
   * this thread has cached, never the only one). A step of placed sequences asks the worker nothing.
   */
  private place(batch: readonly StepRequest[], worker: WorkerEngine | null): void {
    for (const req of batch) {
      if (this.local.has(req.seqId) || worker?.holds(req.seqId)) continue;
      const remote = worker?.usable ? worker : null;
      const workers = remote?.size ?? 0;
      const total = workers + this.local.size + 1;
      const toWorker = remote && this.here.length(req.seqId) === 0 && workers + 1 <= this.share * total + 1e-9 && this.local.size > 0;
      if (toWorker) remote.adopt(req.seqId);
      else this.local.add(req.seqId);
    }
  }

  /** After a step that used both threads: the share for which both would have finished together, folded into `share`. */
  private balance(rowsHere: number, rowsThere: number, hereMs: number, workerMs: number): void {
    if (hereMs <= 0 || workerMs <= 0) return;
    const perRowHere = hereMs / rowsHere,
      perRowThere = workerMs / rowsThere,
      total = rowsHere + rowsThere;
    const workerRows = (total * perRowHere) / (perRowHere + perRowThere);
    const target = Math.min(SHARE_MAX, Math.max(SHARE_MIN, workerRows / total));
    this.share += SHARE_SMOOTHING * (target - this.share);
  }
}

function rows(batch: readonly StepRequest[], idx: number[]): number {
  return idx.reduce((n, i) => n + batch[i].tokens.length, 0);
}
