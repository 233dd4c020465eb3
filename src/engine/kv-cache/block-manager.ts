/**
 * Block bookkeeping of the paged KV cache: vLLM's KVCacheManager + BlockPool in the readable shape
 * of nano-vllm's engine/block_manager.py. A fixed budget of block ids with reference counts; each
 * sequence has a block table and the token ids of the slots it holds.
 *
 * Prefix caching (when enabled): a full block whose tokens are final (no draft among them) is
 * registered under its chained key (block-key.ts), which stands for the whole prefix up to the
 * block's end. A new sequence reuses the longest run of registered blocks matching its tokens — at
 * most all but its last token, rounded down to whole blocks, since the last token must be computed
 * for its logits (vLLM's get_computed_blocks) — instead of recomputing them; each reuse takes a
 * reference. A block is free when its last reference is released; a registered free block keeps its
 * K/V and key, so it can still be reused, until a block is needed and none other is free: then the
 * least recently freed one is evicted (its key dropped) and handed out.
 *
 * Allocation order: a free block with no key (nothing lost by reusing it; most recently freed first),
 * then one never used (storage grows with the high-water mark, so an idle budget costs nothing),
 * then the least recently freed registered block. Blocks of a released sequence are freed last block
 * first, so its tail blocks — the least likely to be shared — are evicted before its head.
 *
 * Registration happens when slots are allocated, before the step computes them (as in vLLM): a
 * sequence admitted later in the same step can reuse them, since every layer writes the K/V of all
 * of a step's rows before any row attends.
 */
import { KvCacheFullError } from './cache.js';
import { blockKey, ROOT_KEY } from './block-key.js';
import { NO_STATE_FAULTS, type StateFaults } from '../state-faults.js';

interface SeqBlocks {
  table: number[];
  /** Token id of every slot held (−1 where the caller did not say). */
  tokens: number[];
  /** Leading slots whose tokens are final; full blocks within them are registered. */
  committed: number;
  /** Chained key of each full committed block of the table. */
  keys: string[];
  /** The prefix lookup of attachPrefix, counted in the stats once the sequence's first slots are allocated (a sequence that waits on is looked up again). */
  lookup?: { queries: number; hits: number };
}

export interface PrefixCacheStats {
  /** Prompt tokens looked up, and those found cached (vLLM's prefix_cache_queries / hits). */
  queries: number;
  hits: number;
}

export class BlockManager {
  private readonly refs: Int32Array;
  /** The key a block is registered under (null: none). */
  private readonly keyOf: (string | null)[];
  private readonly byKey = new Map<string, number>();
  /** Free blocks without a key, most recently freed last. */
  private readonly plainFree: number[] = [];
  /** Free registered blocks, least recently freed first (a Set keeps insertion order). */
  private readonly cachedFree = new Set<number>();
  private highWater = 0;
  private readonly seqs = new Map<number, SeqBlocks>();
  readonly stats: PrefixCacheStats = { queries: 0, hits: 0 };

  constructor(
    readonly numBlocks: number,
    readonly pageSize: number,
    readonly prefixCaching: boolean,
    private readonly faults: StateFaults = NO_STATE_FAULTS,
  ) {
    if (!Number.isInteger(numBlocks) || numBlocks < 1) throw new RangeError(`numBlocks must be a positive integer, got ${numBlocks}`);
    this.refs = new Int32Array(numBlocks);
    this.keyOf = new Array<string | null>(numBlocks).fill(null);
  }

  get numFree(): number {
    return this.plainFree.length + this.cachedFree.size + (this.numBlocks - this.highWater);
  }

  /** Blocks ever handed out; storage must hold this many. */
  get highWaterMark(): number {
    return this.highWater;
  }

  /** Share of the budget in use (vLLM's kv_cache_usage_perc, 0…1). */
  get usage(): number {
    return (this.numBlocks - this.numFree) / this.numBlocks;
  }

  table(seqId: number): readonly number[] {
    return this.seqs.get(seqId)?.table ?? [];
  }

  /** Slots the sequence holds (≥ the tokens written to them). */
  slots(seqId: number): number {
    return this.seqs.get(seqId)?.tokens.length ?? 0;
  }

  refCount(block: number): number {
    return this.refs[block];
  }

  /** Blocks a sequence would need in addition to hold `newLen` slots. */
  blocksNeeded(seqId: number, newLen: number): number {
    return Math.max(0, Math.ceil(newLen / this.pageSize) - (this.seqs.get(seqId)?.table.length ?? 0));
  }

  /** Registered blocks matching the leading full blocks of `tokens`, at most all but the last token. */
  private cachedRun(tokens: readonly number[]): { blocks: number[]; keys: string[] } {
    const blocks: number[] = [];
    const keys: string[] = [];
    if (!this.prefixCaching) return { blocks, keys };
    const P = this.pageSize;
    let parent = ROOT_KEY;
    for (let b = 0; (b + 1) * P <= tokens.length - 1; b++) {
      const key = blockKey(parent, tokens.slice(b * P, (b + 1) * P));
      const block = this.byKey.get(key);
      if (block === undefined) break;
      blocks.push(block);
      keys.push(key);
      parent = key;
    }
    return { blocks, keys };
  }

  /** Tokens of `tokens` a new sequence would find cached (nothing changes). */
  cachedPrefixLength(tokens: readonly number[]): number {
    return this.cachedRun(tokens).blocks.length * this.pageSize;
  }

  /**
   * A new sequence reuses the cached prefix of `tokens` (one reference per block); returns the
   * tokens reused, a multiple of the page size. Its slots then hold exactly those tokens.
   */
  attachPrefix(seqId: number, tokens: readonly number[]): number {
    if (this.seqs.has(seqId)) throw new RangeError(`sequence ${seqId} already holds blocks`);
    const { blocks, keys } = this.cachedRun(tokens);
    for (const b of blocks) this.take(b);
    const n = blocks.length * this.pageSize;
    const lookup = this.prefixCaching ? { queries: tokens.length, hits: n } : undefined;
    this.seqs.set(seqId, { table: blocks, tokens: tokens.slice(0, n), committed: n, keys, lookup });
    return n;
  }

  /**
   * Slots for `tokens` after the sequence's current slots; the first `committed` of them are final
   * (the rest are drafts that may be rolled back). Returns false, changing nothing, when the free
   * blocks do not suffice.
   */
  allocateSlots(seqId: number, tokens: readonly number[], committed = tokens.length): boolean {
    const seq = this.seqs.get(seqId) ?? { table: [], tokens: [], committed: 0, keys: [] };
    const need = this.blocksNeeded(seqId, seq.tokens.length + tokens.length);
    if (need > this.numFree) return false;
    for (let i = 0; i < need; i++) seq.table.push(this.allocateBlock());
    seq.committed = seq.tokens.length + committed;
    seq.tokens.push(...tokens);
    this.seqs.set(seqId, seq);
    if (seq.lookup) {
      this.stats.queries += seq.lookup.queries;
      this.stats.hits += seq.lookup.hits;
      seq.lookup = undefined;
    }
    this.registerFullBlocks(seq);
    return true;
  }

  /** As allocateSlots for `n` slots whose tokens are not known (never registered); throws KvCacheFullError. */
  grow(seqId: number, n: number): void {
    if (!this.allocateSlots(seqId, new Array<number>(n).fill(-1), 0))
      throw new KvCacheFullError(`KV cache is full: sequence ${seqId} needs ${this.blocksNeeded(seqId, this.slots(seqId) + n)} more blocks, ${this.numFree} free`);
  }

  /** Keeps the first `len` slots (rejected drafts dropped); blocks no longer needed are released. */
  truncate(seqId: number, len: number): void {
    const seq = this.seqs.get(seqId);
    if (!seq) return;
    if (len > seq.tokens.length) throw new RangeError(`truncate to ${len} > ${seq.tokens.length} slots`);
    const keep = Math.ceil(len / this.pageSize);
    if (len % this.pageSize !== 0 && this.keyOf[seq.table[keep - 1]] !== null && this.refs[seq.table[keep - 1]] > 1)
      throw new RangeError(`truncating sequence ${seqId} to ${len} would let it overwrite a block it shares`);
    while (seq.table.length > keep) this.release(seq.table.pop()!);
    seq.tokens.length = len;
    seq.committed = Math.min(seq.committed, len);
    seq.keys.length = Math.min(seq.keys.length, Math.floor(seq.committed / this.pageSize));
  }

  /**
   * Releases every block of the sequence (last block first). `aborted`: the request was cancelled —
   * the same release, unless the abort-frees-shared-blocks fault model is on.
   */
  free(seqId: number, aborted = false): void {
    const seq = this.seqs.get(seqId);
    if (!seq) return;
    const ignoreRefs = aborted && this.faults.has('abort-frees-shared-blocks');
    for (let i = seq.table.length - 1; i >= 0; i--) {
      const b = seq.table[i];
      // FAULT MODEL abort-frees-shared-blocks: the block goes back to the free list (and loses its
      // key) whatever other sequences still hold it, so the next allocation overwrites their K/V
      if (ignoreRefs && this.refs[b] > 1) this.forceFree(b);
      else this.release(b);
    }
    this.seqs.delete(seqId);
  }

  /** Forgets every cached prefix (vLLM's reset_prefix_cache): blocks keep their owners, none can be hit. */
  resetPrefixCache(): void {
    for (let b = 0; b < this.numBlocks; b++) this.keyOf[b] = null;
    this.byKey.clear();
    for (const b of this.cachedFree) this.plainFree.push(b);
    this.cachedFree.clear();
  }

  private registerFullBlocks(seq: SeqBlocks): void {
    if (!this.prefixCaching) return;
    const P = this.pageSize;
    for (let b = seq.keys.length; (b + 1) * P <= seq.committed; b++) {
      const tokens = seq.tokens.slice(b * P, (b + 1) * P);
      if (tokens.includes(-1)) return;
      const key = blockKey(b === 0 ? ROOT_KEY : seq.keys[b - 1], tokens);
      seq.keys.push(key);
      const block = seq.table[b];
      // the first block computed for a prefix keeps the key; a duplicate stays unregistered
      if (!this.byKey.has(key) && this.keyOf[block] === null) {
        this.byKey.set(key, block);
        this.keyOf[block] = key;
      }
    }
  }

  /** One more reference to a block (a reused cached block leaves the free set). */
  private take(b: number): void {
    if (this.refs[b] === 0 && !this.cachedFree.delete(b)) {
      // only a stale key (fault model) can point at a free block without a key
      const i = this.plainFree.lastIndexOf(b);
      if (i >= 0) this.plainFree.splice(i, 1);
    }
    this.refs[b]++;
  }

  private release(b: number): void {
    if (this.refs[b] === 0) return; // already forced free (fault model): it is on the free list once
    if (--this.refs[b] > 0) return;
    if (this.keyOf[b] !== null) this.cachedFree.add(b);
    else this.plainFree.push(b);
  }

  private forceFree(b: number): void {
    this.refs[b] = 0;
    this.unregister(b);
    this.plainFree.push(b);
  }

  private unregister(b: number): void {
    const key = this.keyOf[b];
    if (key === null) return;
    if (this.byKey.get(key) === b) this.byKey.delete(key);
    this.keyOf[b] = null;
  }

  private allocateBlock(): number {
    let b = this.plainFree.pop();
    if (b === undefined && this.highWater < this.numBlocks) b = this.highWater++;
    if (b === undefined) {
      b = this.cachedFree.values().next().value as number;
      this.cachedFree.delete(b);
      // FAULT MODEL stale-prefix-hash: the evicted block keeps its entry in the key map, so a later
      // lookup of the old prefix returns this block after its new owner has overwritten it
      if (this.faults.has('stale-prefix-hash')) this.keyOf[b] = null;
      else this.unregister(b);
    }
    this.refs[b] = 1;
    return b;
  }
}
