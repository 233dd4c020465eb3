/**
 * Contiguous KV cache: the reference the paged cache is tested against. Each sequence owns,
 * per layer, one array [2 (K, V), Hkv, capacity, hd] that doubles when it fills up.
 * Same dtype conversion (cache.ts storeRunFor), no blocks: a view is plain arithmetic.
 */
import { FP8_E4M3_DECODE_LUT } from '../../numerics/fp8.js';
import { layerDtype, newCodeArray, storeRunFor, type CodeArray, type StoreRun, type KvCache, type KvCacheSpec, type KvView } from './cache.js';

interface Sequence {
  length: number;
  capacity: number;
  values: Float32Array[]; // per layer [2, Hkv, capacity, hd]
  codes: CodeArray[];
}

export class ContiguousKvCache implements KvCache {
  private readonly seqs = new Map<number, Sequence>();
  /** Per layer, the store of its dtype (cache.ts storeRunFor), chosen once. */
  private readonly stores: StoreRun[];

  constructor(readonly spec: KvCacheSpec) {
    this.stores = Array.from({ length: spec.numLayers }, (_, l) => storeRunFor(layerDtype(spec, l)));
  }

  length(seqId: number): number {
    return this.seqs.get(seqId)?.length ?? 0;
  }

  extend(seqId: number, newLen: number): void {
    const seq = this.seqs.get(seqId) ?? { length: 0, capacity: 0, values: [], codes: [] };
    if (newLen < seq.length) throw new RangeError(`extend to ${newLen} < length ${seq.length}; use truncate`);
    if (newLen > seq.capacity) this.grow(seq, Math.max(newLen, seq.capacity * 2, 16));
    seq.length = newLen;
    this.seqs.set(seqId, seq);
  }

  write(layer: number, seqId: number, pos: number, k: Float32Array, kOff: number, v: Float32Array, vOff: number): void {
    const { numKvHeads: H, headDim: hd, scales } = this.spec;
    const store = this.stores[layer];
    const seq = this.seqs.get(seqId);
    if (!seq || pos >= seq.length) throw new RangeError(`write at ${pos} beyond sequence ${seqId}'s length`);
    const cap = seq.capacity;
    const values = seq.values[layer], codes = seq.codes[layer];
    for (let h = 0; h < H; h++) {
      const kBase = (h * cap + pos) * hd;
      const vBase = ((H + h) * cap + pos) * hd;
      store(codes, values, kBase, k, kOff + h * hd, hd, scales[layer].k, FP8_E4M3_DECODE_LUT);
      store(codes, values, vBase, v, vOff + h * hd, hd, scales[layer].v, FP8_E4M3_DECODE_LUT);
    }
  }

  view(layer: number, seqId: number): KvView {
    const { numKvHeads: H, headDim: hd } = this.spec;
    const seq = this.seqs.get(seqId);
    const cap = seq?.capacity ?? 0;
    return {
      values: seq?.values[layer] ?? new Float32Array(0),
      length: seq?.length ?? 0,
      keyOffset: (pos, h) => (h * cap + pos) * hd,
      valueOffset: (pos, h) => ((H + h) * cap + pos) * hd,
    };
  }

  truncate(seqId: number, newLen: number): void {
    const seq = this.seqs.get(seqId);
    if (!seq) return;
    if (newLen > seq.length) throw new RangeError(`truncate to ${newLen} > length ${seq.length}`);
    seq.length = newLen;
  }

  free(seqId: number): void {
    this.seqs.delete(seqId);
  }

  private grow(seq: Sequence, capacity: number): void {
    const { numLayers, numKvHeads: H, headDim: hd } = this.spec;
    for (let l = 0; l < numLayers; l++) {
      const values = new Float32Array(2 * H * capacity * hd);
      const codes = newCodeArray(layerDtype(this.spec, l), values.length);
      const old = seq.values[l];
      if (old) {
        // copy each (K|V, head) row block [seq.capacity, hd] into its new, longer slot
        for (let r = 0; r < 2 * H; r++) {
          const src = r * seq.capacity * hd, dst = r * capacity * hd, n = seq.capacity * hd;
          values.set(old.subarray(src, src + n), dst);
          codes.set(seq.codes[l].subarray(src, src + n) as never, dst);
        }
      }
      seq.values[l] = values;
      seq.codes[l] = codes;
    }
    seq.capacity = capacity;
  }
}
