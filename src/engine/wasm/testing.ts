/** Test helper for the matmul kernels: a batch of rows must give what each row gives alone. */
import assert from 'node:assert/strict';
import type { AcceleratedModel } from './accelerate.js';

/** Runs `x` ([n, D]) through `matmul` at once and row by row; every output row must be bit-identical. */
export function assertRowsMatchAlone(matmul: AcceleratedModel['matmul'], x: Float32Array, w: Float32Array, n: number, D: number, O: number, label: string): Float32Array {
  const together = new Float32Array(n * O);
  matmul(together, x, w, n, D, O);
  for (let r = 0; r < n; r++) {
    const alone = new Float32Array(O);
    matmul(alone, x.subarray(r * D, (r + 1) * D), w, 1, D, O);
    assert.deepEqual(together.subarray(r * O, (r + 1) * O), alone, `${label} row ${r}`);
  }
  return together;
}
