/**
 * An engine step over two threads (Engine option `parallel.threads = 2`): this thread and one worker
 * thread (worker-shard.ts) that holds a second copy of the engine. Each sequence is assigned to one
 * of them on its first step and stays there (its KV cache lives there); a step runs both parts at
 * once. Rows never interact (batch invariance) and the phases are decided over the whole step before
 * it is split, so every result is bit-identical to one thread.
 *
 * Prefetch: the scheduler knows the next step's tokens as soon as a step ends. It announces them
 * (prefetch) and the worker starts its part right away, while this thread serves the clients (HTTP,
 * streaming) and then computes its own part; forward() takes the prefetched results for every request
 * whose tokens and phase turned out the same, runs the rest, and undoes prefetched work nobody asked
 * for (an aborted sequence). New sequences go to the worker in the proportion that keeps both threads
 * equally busy, estimated after every two-thread step from the measured time per row on each thread
 * and the time this thread spent between steps (which a prefetched worker step overlaps).
 */
import type { AttentionPhase } from './attention/backend.js';
import type { StepRequest, StepResult } from './engine.js';
import type { KvCache } from './kv-cache/cache.js';
import type { Model } from './model.js';
import type { ShardAttention, ShardEngineOptions, ShardOp } from './shard-protocol.js';
import { WorkerShard, type ShardResult } from './worker-shard.js';

/** What the split needs from the engine that owns it. */
export interface SplitHost {
  readonly cache: KvCache;
  forwardPhased(batch: readonly StepRequest[], decode: readonly boolean[], qLenPerReq: number): StepResult[];
}

/** A worker step posted ahead of forward(). */
interface Ahead {
  requests: { seqId: number; tokens: number[] }[];
  decode: boolean[];
  qLenPerReq: number;
  /** Sequences rolled back or released after the prefetch: its results for them are void. */
  stale: Set<number>;
}

/** Bounds of the worker's share of the sequences, and the weight of one step's estimate in it. */
const SHARE_MIN = 0.1,
  SHARE_MAX = 0.9,
  SHARE_SMOOTHING = 0.2;

export class ThreadSplit {
  private shard: WorkerShard | null = null;
  /** The worker's sequences and their lengths (mirrored here), and this thread's sequences. */
  private readonly remote = new Map<number, number>();
  private readonly local = new Set<number>();
  /** Cache bookkeeping for the worker's sequences, sent with its next step. */
  private pendingOps: ShardOp[] = [];
  private ahead: Ahead | null = null;
  /** Target fraction of live sequences on the worker. */
  private share = 0.5;
  /** When the last forward() returned (this thread's time between steps overlaps a prefetched worker step). */
  private lastEnd = 0;
  /** Prefetched requests whose results a step used, and those it threw away. */
  readonly prefetched = { used: 0, dropped: 0 };

  constructor(
    private readonly host: SplitHost,
    private readonly model: Model,
    private readonly options: ShardEngineOptions,
    private readonly attention: ShardAttention,
  ) {}

  start(): Promise<boolean> {
    this.shard ??= new WorkerShard(this.model, this.options, this.attention);
    return this.shard.ready;
  }

  get started(): boolean {
    return this.shard !== null;
  }

  async close(): Promise<void> {
    this.ahead = null;
    await this.shard?.close();
  }

  counts(): { here: number; worker: number } {
    return { here: this.local.size, worker: this.remote.size };
  }

  /** The mirrored length of a worker sequence; undefined for this thread's. */
  length(seqId: number): number | undefined {
    return this.remote.get(seqId);
  }

  /** Truncates a worker sequence (false: not the worker's). */
  rollback(seqId: number, len: number): boolean {
    const have = this.remote.get(seqId);
    if (have === undefined) return false;
    if (len > have) throw new RangeError(`truncate to ${len} > length ${have}`);
    this.remote.set(seqId, len);
    this.pendingOps.push({ kind: 'truncate', seqId, len });
    this.ahead?.stale.add(seqId);
    return true;
  }

  /** Forgets a sequence (false: not the worker's, the caller frees it). */
  release(seqId: number): boolean {
    this.local.delete(seqId);
    if (!this.remote.delete(seqId)) return false;
    this.pendingOps.push({ kind: 'free', seqId });
    this.ahead?.stale.add(seqId);
    return true;
  }

  private readyShard(): WorkerShard | null {
    return this.shard?.isReady && !this.shard.dead ? this.shard : null;
  }

  /** Starts the worker's part of an announced step (its requests run where they live; new sequences are not placed yet). */
  prefetch(batch: readonly StepRequest[], decode: readonly boolean[], qLenPerReq: number): void {
    const shard = this.readyShard();
    if (!shard || this.ahead) return;
    const there = batch.flatMap((r, i) => (this.remote.has(r.seqId) ? [i] : []));
    if (!there.length) return;
    const { vocabSize: V, hiddenSize: d } = this.model.config;
    const requests = there.map((i) => ({ seqId: batch[i].seqId, tokens: [...batch[i].tokens] }));
    const flags = there.map((i) => decode[i]);
    shard.post(this.pendingOps.splice(0), requests, flags, qLenPerReq, V, d);
    this.ahead = { requests, decode: flags, qLenPerReq, stale: new Set() };
  }

  forward(batch: readonly StepRequest[], decode: readonly boolean[], qLenPerReq: number): StepResult[] {
    const started = performance.now();
    const between = this.lastEnd ? started - this.lastEnd : 0;
    try {
      return this.forwardSplit(batch, decode, qLenPerReq, between);
    } finally {
      this.lastEnd = performance.now();
    }
  }

  private forwardSplit(batch: readonly StepRequest[], decode: readonly boolean[], qLenPerReq: number, between: number): StepResult[] {
    const shard = this.readyShard();
    this.place(batch, shard !== null);
    const there = batch.flatMap((r, i) => (this.remote.has(r.seqId) ? [i] : []));
    if (!there.length && !this.ahead) return this.host.forwardPhased(batch, decode, qLenPerReq);
    if (!shard) throw new Error('the engine worker thread stopped; its sequences cannot continue');
    const here = batch.flatMap((r, i) => (this.remote.has(r.seqId) ? [] : [i]));
    const { vocabSize: V, hiddenSize: d } = this.model.config;
    const rowsOf = (idx: number[]) => idx.map((i) => batch[i].tokens.length);
    const before = new Map(there.map((i) => [i, this.remote.get(batch[i].seqId)!]));
    /** Results of the worker's requests, by batch index, as they arrive. */
    const theirs = new Map<number, ShardResult>();
    const ahead = this.ahead;
    this.ahead = null;

    /** Worker time on this step's requests (ms), for balancing. */
    let workerMs = 0;
    /** Waits for the prefetched step; keeps the results that match this batch exactly (tokens and phase). */
    let aheadDone = !ahead;
    const finishAhead = () => {
      if (aheadDone || !ahead) return;
      aheadDone = true;
      let results: ShardResult[];
      try {
        results = shard.collect(ahead.requests.map((r) => r.tokens.length), V, d);
        workerMs += shard.lastStepMs;
      } catch {
        return; // it failed and the worker restored its sequences: they run again below
      }
      ahead.requests.forEach((r, k) => {
        const i = there.find((j) => batch[j].seqId === r.seqId);
        const same =
          i !== undefined &&
          !ahead.stale.has(r.seqId) &&
          decode[i] === ahead.decode[k] &&
          (!decode[i] || qLenPerReq === ahead.qLenPerReq) &&
          r.tokens.length === batch[i].tokens.length &&
          r.tokens.every((t, x) => t === batch[i].tokens[x]);
        if (same) {
          theirs.set(i, results[k]);
          this.prefetched.used++;
          return;
        }
        this.prefetched.dropped++;
        // prefetched work nobody asked for: back to the mirrored length
        if (this.remote.has(r.seqId)) this.pendingOps.push({ kind: 'truncate', seqId: r.seqId, len: this.remote.get(r.seqId)! });
      });
    };
    /** The requests the prefetch did not cover: one more worker step (after the prefetched one). */
    let posted: number[] = [];
    const post = (idx: number[]) => {
      posted = idx;
      if (!idx.length) return;
      const requests = idx.map((i) => ({ seqId: batch[i].seqId, tokens: [...batch[i].tokens] }));
      shard.post(this.pendingOps.splice(0), requests, idx.map((i) => decode[i]), qLenPerReq, V, d);
    };
    const collectPosted = () => {
      if (!posted.length) return;
      shard.collect(rowsOf(posted), V, d).forEach((r, k) => theirs.set(posted[k], r));
      workerMs += shard.lastStepMs;
      posted = [];
    };
    const covered = (i: number) => ahead?.requests.some((r) => r.seqId === batch[i].seqId) ?? false;
    if (there.some((i) => !covered(i))) {
      finishAhead();
      post(there.filter((i) => !theirs.has(i)));
    }

    let mine: StepResult[];
    const mainStart = performance.now();
    try {
      mine = here.length ? this.host.forwardPhased(here.map((i) => batch[i]), here.map((i) => decode[i]), qLenPerReq) : [];
    } catch (e) {
      // leave every sequence as it was: undo the worker's part once it is done
      try {
        finishAhead();
        collectPosted();
      } catch {
        // the worker failed too; it restored what it could
      }
      for (const [i] of theirs) this.pendingOps.push({ kind: 'truncate', seqId: batch[i].seqId, len: before.get(i)! });
      throw e;
    }
    const mainMs = performance.now() - mainStart;
    const prefetchedAll = there.every(covered);
    try {
      finishAhead();
      collectPosted();
      // only after a failed prefetch: its requests, now
      post(there.filter((i) => !theirs.has(i)));
      collectPosted();
    } catch (e) {
      for (const i of here) this.host.cache.truncate(batch[i].seqId, this.host.cache.length(batch[i].seqId) - batch[i].tokens.length);
      for (const [i] of theirs) this.pendingOps.push({ kind: 'truncate', seqId: batch[i].seqId, len: before.get(i)! });
      throw e;
    }
    if (here.length && there.length) this.balance(rowsOf(here), rowsOf(there), mainMs, workerMs, prefetchedAll ? between : 0);
    for (const i of there) this.remote.set(batch[i].seqId, before.get(i)! + batch[i].tokens.length);
    const results: StepResult[] = new Array(batch.length);
    here.forEach((i, k) => (results[i] = mine[k]));
    for (const i of there) {
      const r = theirs.get(i)!;
      const phase: AttentionPhase = decode[i] ? { kind: 'decode', qLenPerReq } : { kind: 'prefill' };
      results[i] = { seqId: batch[i].seqId, rows: batch[i].tokens.length, logits: r.logits, hidden: r.hidden, phase };
    }
    return results;
  }

  /** New sequences: to the worker while it holds less than its share (never before it is ready, never a sequence this thread has cached). */
  private place(batch: readonly StepRequest[], workerReady: boolean): void {
    for (const req of batch) {
      if (this.remote.has(req.seqId) || this.local.has(req.seqId)) continue;
      const total = this.remote.size + this.local.size + 1;
      if (workerReady && this.host.cache.length(req.seqId) === 0 && this.remote.size + 1 <= this.share * total + 1e-9 && this.local.size > 0) this.remote.set(req.seqId, 0);
      else this.local.add(req.seqId);
    }
  }

  /**
   * After a step that used both threads: the share of rows the worker should have had for both to
   * finish together — its rows × its time per row = this thread's free time for it (the time between
   * steps, when the worker's part was prefetched, plus this thread's own part) — folded into `share`.
   */
  private balance(rowsHere: number[], rowsThere: number[], mainMs: number, workerMs: number, overlapMs: number): void {
    const here = rowsHere.reduce((a, b) => a + b, 0),
      there = rowsThere.reduce((a, b) => a + b, 0);
    if (mainMs <= 0 || workerMs <= 0) return;
    const perRowHere = mainMs / here,
      perRowThere = workerMs / there,
      rows = here + there;
    // an idle spell between steps says nothing about the load: count at most one step's worth
    const overlap = Math.min(overlapMs, mainMs + workerMs);
    const workerRows = (overlap + rows * perRowHere) / (perRowHere + perRowThere);
    const target = Math.min(SHARE_MAX, Math.max(SHARE_MIN, workerRows / rows));
    this.share += SHARE_SMOOTHING * (target - this.share);
  }
}
