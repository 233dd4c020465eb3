/**
 * onlineSoftmaxRowHead (online-softmax.ts) for a whole request on the WebAssembly SIMD kernels
 * (wasm/attention-kernels.ts), bit for bit: per KV head the K/V rows that any of its (row, head) pairs
 * reads are loaded once; two query heads with the same key range share a pass (a lane each):
 *   - the kernel computes both float64 dot products over d, in order;
 *   - JS runs the tiles exactly as online-softmax.ts: Math.fround(Math.fround(dot) · scaleLog2), the
 *     tile max, corr = fround(2 ** (m − mNew)), l = fround(l · corr), p = fround(2 ** (x − mNew)),
 *     l = fround(l + p) — and hands the kernel each tile's corr and each key's p;
 *   - the kernel applies them to float32 accumulators (acc = f32(acc · corr), acc = f32(acc + p · v));
 *   - JS writes out = fround(fround(acc / l) · gain).
 * A head whose range differs from its neighbour's (a fault model's pair) runs alone in both lanes.
 */
import type { AttentionKernels } from '../wasm/attention-kernels.js';
import type { OnlineSoftmaxArgs } from './online-softmax.js';

/**
 * All rows and heads of one request. lo / hi: [qLen · Hq] key ranges (inclusive) of each (row, head),
 * indexed row · Hq + head. `a.kvTransform` must be null (the caller keeps the JS kernel for it).
 */
export function onlineSoftmaxRequestSimd(kernels: AttentionKernels, a: OnlineSoftmaxArgs, qLen: number, lo: Int32Array, hi: Int32Array): void {
  const { q, out, headDim: hd, pageSize: P, numHeads: Hq } = a;
  const perKv = Hq / a.numKvHeads;
  const scaleLog2 = Math.fround(a.bmm1 * Math.LOG2E);
  const gain = Math.fround(a.bmm2);
  for (let g = 0; g < a.numKvHeads; g++) {
    const h0 = g * perKv,
      h1 = h0 + perKv;
    let first = Infinity,
      last = -Infinity;
    for (let t = 0; t < qLen; t++)
      for (let h = h0; h < h1; h++) {
        first = Math.min(first, lo[t * Hq + h]);
        last = Math.max(last, hi[t * Hq + h]);
      }
    kernels.loadKv(a.view, g, first, last, P, hd, 1, 1, qLen * Math.ceil(perKv / 2));
    const m = kernels.f64;
    const { q: qAt, scores: sAt, corr: cAt, acc0, acc1 } = kernels.at;
    for (let t = 0; t < qLen; t++)
      for (let h = h0; h < h1; ) {
        const i0 = t * Hq + h;
        const jLo = lo[i0],
          jHi = hi[i0];
        const pair = h + 1 < h1 && lo[i0 + 1] === jLo && hi[i0 + 1] === jHi;
        const qo0 = ((a.rowStart + t) * Hq + h) * hd;
        const qo1 = pair ? qo0 + hd : qo0;
        for (let d = 0; d < hd; d++) {
          m[qAt + 2 * d] = q[qo0 + d];
          m[qAt + 2 * d + 1] = q[qo1 + d];
        }
        const n = jHi - jLo + 1;
        kernels.dots(jLo - first, n);
        let m0 = -Infinity,
          m1 = -Infinity,
          l0 = 0,
          l1 = 0,
          c = cAt;
        for (let tile = Math.floor(jLo / P) * P; tile <= jHi; tile += P) {
          const i1 = sAt + 2 * (Math.min(jHi, tile + P - 1) - jLo) + 2; // end of the tile's score pairs
          let i = sAt + 2 * (Math.max(jLo, tile) - jLo);
          const iStart = i;
          let tileMax0 = -Infinity,
            tileMax1 = -Infinity;
          for (; i < i1; i += 2) {
            const x0 = (m[i] = Math.fround(Math.fround(m[i]) * scaleLog2));
            const x1 = (m[i + 1] = Math.fround(Math.fround(m[i + 1]) * scaleLog2));
            if (x0 > tileMax0) tileMax0 = x0;
            if (x1 > tileMax1) tileMax1 = x1;
          }
          const mNew0 = Math.max(m0, tileMax0),
            mNew1 = Math.max(m1, tileMax1);
          const corr0 = (m[c] = Math.fround(2 ** (m0 - mNew0)));
          const corr1 = (m[c + 1] = Math.fround(2 ** (m1 - mNew1)));
          c += 2;
          l0 = Math.fround(l0 * corr0);
          l1 = Math.fround(l1 * corr1);
          for (i = iStart; i < i1; i += 2) {
            const p0 = (m[i] = Math.fround(2 ** (m[i] - mNew0)));
            const p1 = (m[i + 1] = Math.fround(2 ** (m[i + 1] - mNew1)));
            l0 = Math.fround(l0 + p0);
            l1 = Math.fround(l1 + p1);
          }
          m0 = mNew0;
          m1 = mNew1;
        }
        const firstTileKeys = Math.min(jHi, Math.floor(jLo / P) * P + P - 1) - jLo + 1;
        kernels.pvRounded(jLo - first, n, firstTileKeys, P);
        for (let d = 0; d < hd; d++) out[qo0 + d] = Math.fround(Math.fround(m[acc0 + d] / l0) * gain);
        if (pair) for (let d = 0; d < hd; d++) out[qo1 + d] = Math.fround(Math.fround(m[acc1 + d] / l1) * gain);
        h += pair ? 2 : 1;
      }
  }
}
