/**
 * `--batch-variant-numerics`: a matmul whose reduction order depends on how many rows the engine step
 * carries — what real GPU servers do when a GEMM picks its tiling / split-K from the batch size, and
 * why the same request gives slightly different logits under different load (research
 * correctness-oracles.md §2). Here: a step with n > 1 rows splits every dot product of length D
 * in two at column c(n) (split-K), reduces each part in the kernel's own order and adds the two
 * float32 partial sums:
 *
 *   c(n) = 16 · (1 + n mod (⌈D/16⌉ − 1))      (a 16-float boundary strictly inside the row)
 *
 * A one-row step is not split (a lone decode step equals the batch-invariant engine); steps of
 * different sizes mostly split at different columns (like a GEMM heuristic choosing its split-K
 * from the batch dimension: a few sizes share a choice). The differences are float32 rounding-level
 * per matmul; where they flip a BF16 rounding of the stored result they are carried through the
 * layers — tiny and benign, as in serving, with an occasional greedy flip at a near-tie. The default
 * engine stays batch-invariant.
 */
import type { MatmulFn } from './ops.js';
import type { PartialMatmulFn } from './wasm/accelerate.js';

/** Column boundaries of the reduction for a step of `rows` rows: [0, D] (no split) or [0, c, D]. */
export function segmentBounds(rows: number, D: number): number[] {
  const chunks = Math.ceil(D / 16);
  if (rows <= 1 || chunks < 2) return [0, D];
  return [0, 16 * (1 + (rows % (chunks - 1))), D];
}

/** The JS fallback of a partial matmul (float64 accumulation per output over [c0, c1)). */
export const jsPartialMatmul: PartialMatmulFn = (out, x, w, n, D, O, c0, c1) => {
  for (let r = 0; r < n; r++)
    for (let o = 0; o < O; o++) {
      let acc = 0;
      for (let i = c0; i < c1; i++) acc += w[o * D + i] * x[r * D + i];
      out[r * O + o] = acc;
    }
};

export function batchVariantMatmul(full: MatmulFn, partial: PartialMatmulFn): MatmulFn {
  let scratch = new Float32Array(0);
  return (out, x, w, n, D, O) => {
    const bounds = segmentBounds(n, D);
    if (bounds.length <= 2) return full(out, x, w, n, D, O);
    if (scratch.length < n * O) scratch = new Float32Array(n * O);
    partial(out, x, w, n, D, O, bounds[0], bounds[1]);
    for (let s = 1; s + 1 < bounds.length; s++) {
      partial(scratch, x, w, n, D, O, bounds[s], bounds[s + 1]);
      for (let i = 0; i < n * O; i++) out[i] = Math.fround(out[i] + scratch[i]);
    }
  };
}
