/**
 * Paged KV cache as vLLM's FlashInfer backend lays it out on SM100 (HND):
 *   per layer: [numBlocks, 2 (K, V), Hkv, pageSize, hd]
 * one block table per sequence shared by all layers, and
 *   slot(pos) = table[⌊pos / pageSize⌋] · pageSize + pos mod pageSize.
 * Blocks are not cleared when freed (vLLM does not either): a kernel that reads outside its
 * range reads stale data, as on a GPU.
 */
import { BlockAllocator } from './allocator.js';
import { KvCacheFullError, layerDtype, newCodeArray, storeRun, type CodeArray, type KvCache, type KvCacheSpec, type KvView } from './cache.js';

export const SUPPORTED_PAGE_SIZES = [16, 32, 64] as const;

interface Sequence {
  table: number[];
  length: number;
}

export class PagedKvCache implements KvCache {
  private readonly allocator: BlockAllocator;
  private readonly seqs = new Map<number, Sequence>();
  private capacity = 0; // blocks the storage arrays hold
  private values: Float32Array[] = []; // per layer [capacity, 2, Hkv, P, hd]
  private codes: CodeArray[] = [];
  private readonly blockElems: number; // 2·Hkv·P·hd

  constructor(readonly spec: KvCacheSpec, numBlocks: number) {
    if (!(SUPPORTED_PAGE_SIZES as readonly number[]).includes(spec.pageSize))
      throw new RangeError(`page size ${spec.pageSize} is not supported (use ${SUPPORTED_PAGE_SIZES.join(', ')})`);
    this.allocator = new BlockAllocator(numBlocks);
    this.blockElems = 2 * spec.numKvHeads * spec.pageSize * spec.headDim;
  }

  get numFreeBlocks(): number {
    return this.allocator.numFree;
  }

  /** Blocks a sequence would need in addition to grow to newLen tokens. */
  blocksNeeded(seqId: number, newLen: number): number {
    const have = this.seqs.get(seqId)?.table.length ?? 0;
    return Math.max(0, Math.ceil(newLen / this.spec.pageSize) - have);
  }

  length(seqId: number): number {
    return this.seqs.get(seqId)?.length ?? 0;
  }

  blockTable(seqId: number): readonly number[] {
    return this.seqs.get(seqId)?.table ?? [];
  }

  /** vLLM's slot mapping for one position. */
  slot(seqId: number, pos: number): number {
    const P = this.spec.pageSize;
    const table = this.seqs.get(seqId)?.table ?? [];
    const block = table[Math.floor(pos / P)];
    if (block === undefined) throw new RangeError(`position ${pos} of sequence ${seqId} has no block`);
    return block * P + (pos % P);
  }

  extend(seqId: number, newLen: number): void {
    const seq = this.seqs.get(seqId) ?? { table: [], length: 0 };
    if (newLen < seq.length) throw new RangeError(`extend to ${newLen} < length ${seq.length}; use truncate`);
    const need = this.blocksNeeded(seqId, newLen);
    if (need > this.allocator.numFree)
      throw new KvCacheFullError(`KV cache is full: sequence ${seqId} needs ${need} more blocks, ${this.allocator.numFree} free`);
    for (let i = 0; i < need; i++) seq.table.push(this.allocator.allocate());
    this.seqs.set(seqId, seq);
    seq.length = newLen;
    this.growStorage(this.allocator.highWaterMark);
  }

  write(layer: number, seqId: number, pos: number, k: Float32Array, kOff: number, v: Float32Array, vOff: number): void {
    const { numKvHeads: H, headDim: hd, pageSize: P, scales } = this.spec;
    const dtype = layerDtype(this.spec, layer);
    const seq = this.seqs.get(seqId);
    if (!seq || pos >= seq.length) throw new RangeError(`write at ${pos} beyond sequence ${seqId}'s length`);
    const block = seq.table[Math.floor(pos / P)];
    const off = pos % P;
    const values = this.values[layer], codes = this.codes[layer];
    for (let h = 0; h < H; h++) {
      const kBase = ((block * 2 + 0) * H + h) * P * hd + off * hd;
      const vBase = ((block * 2 + 1) * H + h) * P * hd + off * hd;
      storeRun(dtype, k, kOff + h * hd, hd, scales[layer].k, codes, values, kBase);
      storeRun(dtype, v, vOff + h * hd, hd, scales[layer].v, codes, values, vBase);
    }
  }

  view(layer: number, seqId: number): KvView {
    const { numKvHeads: H, headDim: hd, pageSize: P } = this.spec;
    const seq = this.seqs.get(seqId) ?? { table: [], length: 0 };
    const table = seq.table;
    return {
      values: this.values[layer] ?? new Float32Array(0),
      length: seq.length,
      keyOffset: (pos, h) => ((table[(pos / P) | 0] * 2 + 0) * H + h) * P * hd + (pos % P) * hd,
      valueOffset: (pos, h) => ((table[(pos / P) | 0] * 2 + 1) * H + h) * P * hd + (pos % P) * hd,
    };
  }

  /** The raw storage of one layer ([blocks, 2, Hkv, P, hd] codes in the cache dtype), e.g. for dumps. */
  layerCodes(layer: number): CodeArray {
    return this.codes[layer];
  }

  truncate(seqId: number, newLen: number): void {
    const seq = this.seqs.get(seqId);
    if (!seq) return;
    if (newLen > seq.length) throw new RangeError(`truncate to ${newLen} > length ${seq.length}`);
    const keep = Math.ceil(newLen / this.spec.pageSize);
    while (seq.table.length > keep) this.allocator.free(seq.table.pop()!);
    seq.length = newLen;
  }

  free(seqId: number): void {
    const seq = this.seqs.get(seqId);
    if (!seq) return;
    for (const b of seq.table) this.allocator.free(b);
    this.seqs.delete(seqId);
  }

  private growStorage(blocks: number): void {
    if (blocks <= this.capacity) return;
    const cap = Math.min(this.allocator.numBlocks, Math.max(blocks, this.capacity * 2, 4));
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
