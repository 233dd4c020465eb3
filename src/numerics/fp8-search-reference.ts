/**
 * A slow, obviously-correct FP8 encoder used only as the oracle in tests and sweeps: it finds
 * the nearest representable value by binary search over the decoded codes (ties to the even
 * code), instead of the bit manipulation of fp8.ts. It implements the shared data's reference
 * algorithms exactly: `sat` (SATFINITE overflow, NaN keeps its sign) and `nosat` (torch ≤ 2.11).
 */
import type { Fp8Format } from './fp8.js';

interface Grid {
  // Non-negative finite values, ascending, index = code; then the value the next code would have
  // (E4M3 0x7F → 480, E5M2 0x7C → 65536): a virtual code whose parity decides the tie at the rounding limit.
  values: number[];
  maxCode: number;
  nosatOverflow: number; // what torch returns past the limit (without sign)
}

function grid(format: Fp8Format): Grid {
  // Spelled out from the format definitions, independent of fp8.ts.
  const values: number[] = [];
  const [mBits, bias, maxCode] = format === 'e4m3fn' ? [3, 7, 0x7e] : [2, 15, 0x7b];
  for (let c = 0; c <= maxCode; c++) {
    const e = c >> mBits;
    const m = c & ((1 << mBits) - 1);
    values.push(e === 0 ? m * Math.pow(2, 1 - bias - mBits) : (1 + m / (1 << mBits)) * Math.pow(2, e - bias));
  }
  const e = (maxCode + 1) >> mBits;
  const m = (maxCode + 1) & ((1 << mBits) - 1);
  const overflowValue = (1 + m / (1 << mBits)) * Math.pow(2, e - bias);
  values.push(overflowValue); // index maxCode + 1
  return { values, maxCode, nosatOverflow: format === 'e4m3fn' ? 0x7f : 0x7c };
}

const grids = { e4m3fn: grid('e4m3fn'), e5m2: grid('e5m2') };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Reference encode of a float32 given by its bit pattern. */
export function referenceEncodeFp8(bits: number, format: Fp8Format, policy: 'sat' | 'nosat'): number {
  const g = grids[format];
  u32[0] = bits >>> 0;
  const x = f32[0];
  const sign = bits >>> 31 ? 0x80 : 0;
  if (Number.isNaN(x)) return 0x7f | sign;
  const a = Math.abs(x);
  // Nearest among the finite codes and the virtual overflow code, ties to the even code.
  const all = g.values;
  let lo = 0;
  let hi = all.length - 1;
  if (a >= all[hi]) lo = hi;
  else {
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (all[mid] <= a) lo = mid;
      else hi = mid;
    }
    const dLo = a - all[lo];
    const dHi = all[hi] - a;
    if (dHi < dLo || (dHi === dLo && (hi & 1) === 0)) lo = hi;
  }
  if (lo <= g.maxCode) return lo | sign;
  return (policy === 'sat' ? g.maxCode : g.nosatOverflow) | sign;
}
