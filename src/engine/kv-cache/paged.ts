/**
 * Paged KV cache as vLLM's FlashInfer backend lays it out on SM100 (HND):
 *   per layer: [numBlocks, 2 (K, V), Hkv, pageSize, hd]
 * one block table per sequence shared by all layers, and
 *   slot(pos) = table[⌊pos / pageSize⌋] · pageSize + pos mod pageSize.
 * The tables, reference counts and prefix caching are the block manager's (block-manager.ts); this
 * file holds the storage and what each sequence has written. Blocks are not cleared when freed
 * (vLLM does not either): a kernel that reads outside its range reads stale data, as on a GPU.
 */
import { BlockManager, type PrefixCacheStats } from './block-manager.js';
import { FP8_E4M3_DECODE_LUT } from '../../numerics/fp8.js';
import { layerDtype, newCodeArray, storeRunFor, type CodeArray, type StoreRun, type KvCache, type KvCacheSpec, type KvView } from './cache.js';
import type { StateFaults } from '../state-faults.js';
import type { KvBlockSpace } from '../step-engine.js';

export const SUPPORTED_PAGE_SIZES = [16, 32, 64] as const;

export interface PagedCacheOptions {
  /** Reuse full blocks of identical prefixes across sequences (vLLM's --enable-prefix-caching). */
  prefixCaching?: boolean;
  /** Stateful fault models of the block manager (state-faults.ts); none by default. */
  faults?: StateFaults;
}

export class PagedKvCache implements KvCache, KvBlockSpace {
  readonly blocks: BlockManager;
  /** Tokens written per sequence (its slots may reach further: allocated for the step to come). */
  private readonly lengths = new Map<number, number>();
  private capacity = 0; // blocks the storage arrays hold
  private values: Float32Array[] = []; // per layer [capacity, 2, Hkv, P, hd]
  private codes: CodeArray[] = [];
  private readonly blockElems: number; // 2·Hkv·P·hd
  /** Per layer, the store of its dtype (cache.ts storeRunFor), chosen once. */
  private readonly stores: StoreRun[];

  constructor(
    readonly spec: KvCacheSpec,
    numBlocks: number,
    options: PagedCacheOptions = {},
  ) {
    if (!(SUPPORTED_PAGE_SIZES as readonly number[]).includes(spec.pageSize))
      throw new RangeError(`page size ${spec.pageSize} is not supported (use ${SUPPORTED_PAGE_SIZES.join(', ')})`);
    this.blocks = new BlockManager(numBlocks, spec.pageSize, options.prefixCaching ?? false, options.faults);
    this.blockElems = 2 * spec.numKvHeads * spec.pageSize * spec.headDim;
    this.stores = Array.from({ length: spec.numLayers }, (_, l) => storeRunFor(layerDtype(spec, l)));
  }

  // KvBlockSpace (step-engine.ts): what the scheduler manages of this cache
  get numBlocks(): number {
    return this.blocks.numBlocks;
  }
  get pageSize(): number {
    return this.spec.pageSize;
  }
  get prefixCaching(): boolean {
    return this.blocks.prefixCaching;
  }
  get numFree(): number {
    return this.blocks.numFree;
  }
  get usage(): number {
    return this.blocks.usage;
  }
  get stats(): PrefixCacheStats {
    return this.blocks.stats;
  }

  resetPrefixCache(): void {
    this.blocks.resetPrefixCache();
  }

  /** Blocks a sequence would need in addition to grow to newLen tokens. */
  blocksNeeded(seqId: number, newLen: number): number {
    return this.blocks.blocksNeeded(seqId, newLen);
  }

  length(seqId: number): number {
    return this.lengths.get(seqId) ?? 0;
  }

  blockTable(seqId: number): readonly number[] {
    return this.blocks.table(seqId);
  }

  /** vLLM's slot mapping for one position. */
  slot(seqId: number, pos: number): number {
    const P = this.spec.pageSize;
    const block = this.blocks.table(seqId)[Math.floor(pos / P)];
    if (block === undefined) throw new RangeError(`position ${pos} of sequence ${seqId} has no block`);
    return block * P + (pos % P);
  }

  extend(seqId: number, newLen: number): void {
    const len = this.length(seqId);
    if (newLen < len) throw new RangeError(`extend to ${newLen} < length ${len}; use truncate`);
    const slots = this.blocks.slots(seqId);
    if (newLen > slots) this.blocks.grow(seqId, newLen - slots);
    this.lengths.set(seqId, newLen);
    this.growStorage(this.blocks.highWaterMark);
  }

  /** A new sequence starts from the cached blocks of its prefix (block-manager.ts); returns the tokens it already has. */
  attachPrefix(seqId: number, tokens: readonly number[]): number {
    const n = this.blocks.attachPrefix(seqId, tokens);
    this.lengths.set(seqId, n);
    return n;
  }

  /** Slots for the next step's tokens, allocated ahead of it (the scheduler's reservation); false when out of blocks. */
  allocateSlots(seqId: number, tokens: readonly number[], committed: number): boolean {
    if (!this.blocks.allocateSlots(seqId, tokens, committed)) return false;
    if (!this.lengths.has(seqId)) this.lengths.set(seqId, 0);
    this.growStorage(this.blocks.highWaterMark);
    return true;
  }

  write(layer: number, seqId: number, pos: number, k: Float32Array, kOff: number, v: Float32Array, vOff: number): void {
    const { numKvHeads: H, headDim: hd, pageSize: P, scales } = this.spec;
    const store = this.stores[layer];
    if (pos >= this.length(seqId)) throw new RangeError(`write at ${pos} beyond sequence ${seqId}'s length`);
    const block = this.blocks.table(seqId)[Math.floor(pos / P)];
    const off = pos % P;
    const values = this.values[layer], codes = this.codes[layer];
    for (let h = 0; h < H; h++) {
      const kBase = ((block * 2 + 0) * H + h) * P * hd + off * hd;
      const vBase = ((block * 2 + 1) * H + h) * P * hd + off * hd;
      store(codes, values, kBase, k, kOff + h * hd, hd, scales[layer].k, FP8_E4M3_DECODE_LUT);
      store(codes, values, vBase, v, vOff + h * hd, hd, scales[layer].v, FP8_E4M3_DECODE_LUT);
    }
  }

  view(layer: number, seqId: number): KvView {
    const { numKvHeads: H, headDim: hd, pageSize: P } = this.spec;
    const table = this.blocks.table(seqId);
    return {
      values: this.values[layer] ?? new Float32Array(0),
      length: this.length(seqId),
      blocks: table,
      keyOffset: (pos, h) => ((table[(pos / P) | 0] * 2 + 0) * H + h) * P * hd + (pos % P) * hd,
      valueOffset: (pos, h) => ((table[(pos / P) | 0] * 2 + 1) * H + h) * P * hd + (pos % P) * hd,
    };
  }

  /** The raw storage of one layer ([blocks, 2, Hkv, P, hd] codes in the cache dtype), e.g. for dumps. */
  layerCodes(layer: number): CodeArray {
    return this.codes[layer];
  }

  truncate(seqId: number, newLen: number): void {
    if (!this.lengths.has(seqId)) return;
    if (newLen > this.length(seqId)) throw new RangeError(`truncate to ${newLen} > length ${this.length(seqId)}`);
    this.blocks.truncate(seqId, newLen);
    this.lengths.set(seqId, newLen);
  }

  free(seqId: number, aborted = false): void {
    this.blocks.free(seqId, aborted);
    this.lengths.delete(seqId);
  }

  private growStorage(blocks: number): void {
    if (blocks <= this.capacity) return;
    const cap = Math.min(this.blocks.numBlocks, Math.max(blocks, this.capacity * 2, 4));
    for (let l = 0; l < this.spec.numLayers; l++) {
      const values = new Float32Array(cap * this.blockElems);
      const codes = newCodeArray(layerDtype(this.spec, l), cap * this.blockElems);
      if (this.values[l]) values.set(this.values[l]);
      if (this.codes[l]) codes.set(this.codes[l] as never);
      this.values[l] = values;
      this.codes[l] = codes;
    }
    this.capacity = cap;
  }
}
