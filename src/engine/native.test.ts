/**
 * The native addon (native/kernels.c) where it is built: its matmul gives the WebAssembly SIMD
 * kernels' bits output by output (float32 and BF16 weights, 1…16 rows, widths that are and are not
 * multiples of 16), its RMSNorm, BF16 rounding and FP8 KV store give the JS functions' bits. Where the addon
 * is not built (no compiler at install) the test says so and checks that the engine falls back.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../core/rng.js';
import { encodeFp8, FP8_E4M3_DECODE_LUT } from '../numerics/fp8.js';
import { availableKernels } from './kernels.js';
import { nativeKernels } from './native.js';
import { rmsNormJs, roundBf16Js, type MatmulFn } from './ops.js';
import { accelerate } from './wasm/accelerate.js';
import { randomModel, tinyConfig } from './testing/random-init.js';

const native = nativeKernels();
const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

test('the native addon is built and loaded here (else the engine runs the WebAssembly kernels)', (t) => {
  if (!native) {
    t.diagnostic('native kernels not built: the engine uses wasm-simd');
    assert.deepEqual(availableKernels().includes('native'), false);
    return;
  }
  assert.match(native.isa, /^avx(2|512)$/);
  assert.equal(availableKernels()[0], 'native');
});

test('native matmul ≡ WebAssembly SIMD matmul, bit for bit (float32 and BF16 weights, 1…16 rows, odd widths)', { skip: !native }, () => {
  const rng = createRng(2);
  // widths that are multiples of 16 (the tiled kernel) and that are not (the rows kernel; tails of 4 and 1)
  const shapes: [Float32Array, number, number, MatmulFn][] = [];
  for (const [d, I] of [[80, 144], [74, 102]]) {
    const fast = accelerate(randomModel(tinyConfig({ hiddenSize: d, intermediateSize: I }), { seed: d, std: 0.1 }))!;
    const w = fast.model.weights;
    shapes.push([w.layers[0].wGate, d, I, fast.matmul], [w.layers[0].wDown, I, d, fast.matmul], [w.embed, d, 258, fast.matmul]);
  }
  for (const [w, D, O, wasmMatmul] of shapes)
    for (const n of [1, 2, 3, 4, 5, 16]) {
      const x = Float32Array.from({ length: n * D }, () => rng.normal());
      const want = new Float32Array(n * O), got = new Float32Array(n * O), gotBf16 = new Float32Array(n * O);
      wasmMatmul(want, x, w, n, D, O);
      native!.matmul(got, x, Float32Array.from(w), n, D, O);
      native!.matmul(gotBf16, x, Uint16Array.from(bits(Float32Array.from(w)), (b) => b >>> 16), n, D, O);
      assert.deepEqual(bits(got), bits(want), `D ${D} O ${O} n ${n}`);
      assert.deepEqual(bits(gotBf16), bits(want), `BF16 weights, D ${D} O ${O} n ${n}`);
    }
});

test('a float32 matrix registered with setBf16 is read from its BF16 copy; another matrix of the same values is not', { skip: !native }, () => {
  const rng = createRng(4);
  const [D, O, n] = [64, 20, 3];
  const w = Float32Array.from({ length: O * D }, () => rng.normal());
  const x = Float32Array.from({ length: n * D }, () => rng.normal());
  // the copy registered holds 2·w (a different matrix): the output shows which one was read
  const twice = Uint16Array.from(bits(Float32Array.from(w, (v) => 2 * v)), (b) => b >>> 16);
  const plain = Float32Array.from(w);
  native!.setBf16(w, twice);
  const got = new Float32Array(n * O), viaBits = new Float32Array(n * O), unregistered = new Float32Array(n * O), wantPlain = new Float32Array(n * O);
  native!.matmul(got, x, w, n, D, O);
  native!.matmul(viaBits, x, twice, n, D, O);
  native!.matmul(unregistered, x, plain, n, D, O);
  native!.matmul(wantPlain, x, Uint16Array.from(bits(plain), (b) => b >>> 16), n, D, O);
  assert.deepEqual(bits(got), bits(viaBits));
  assert.notDeepEqual(bits(unregistered), bits(got));
  native!.setBf16(w, Uint16Array.from(bits(plain), (b) => b >>> 16)); // registered again: the new copy replaces the old
  native!.matmul(got, x, w, n, D, O);
  assert.deepEqual(bits(got), bits(wantPlain));
});

test('the AVX2 paths (forced with FAULTLINE_NATIVE_ISA=avx2) give the WebAssembly matmul and the JS attention bits', { skip: !native }, () => {
  const script = fileURLToPath(new URL('./testing/native-avx2-check.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, FAULTLINE_NATIVE_ISA: 'avx2', FAULTLINE_KERNELS: '' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'ok avx2');
});

test('native BF16 rounding ≡ the JS rounding on 2 million bit patterns (every exponent, ties, NaN, ±inf, subnormals)', { skip: !native }, () => {
  const n = 1 << 21;
  const u = new Uint32Array(n);
  const rng = createRng(5);
  for (let i = 0; i < n; i++) u[i] = i < 65536 ? (i << 16) | 0x8000 : (rng.int(1 << 16) << 16) | rng.int(1 << 16);
  const a = new Float32Array(u.buffer.slice(0)), b = new Float32Array(u.buffer.slice(0));
  native!.roundBf16(a, n);
  roundBf16Js(b, n);
  assert.deepEqual(bits(a), bits(b));
});

test('native RMSNorm ≡ the JS RMSNorm bit for bit (widths 1…300, tiny and huge rows, in place)', { skip: !native }, () => {
  const rng = createRng(9);
  for (const dim of [1, 7, 64, 256, 300])
    for (const scale of [1e-20, 1e-3, 1, 1e4]) {
      const rows = 5;
      const x = Float32Array.from({ length: rows * dim }, () => rng.normal() * scale);
      const w = Float32Array.from({ length: dim }, () => rng.normal() * 0.3);
      const want = new Float32Array(x.length), got = Float32Array.from(x);
      rmsNormJs(want, x, w, rows, dim, 1e-6);
      native!.rmsNorm(got, got, w, rows, dim, 1e-6);
      assert.deepEqual(bits(got), bits(want), `dim ${dim} scale ${scale}`);
    }
});

test('native FP8 KV store ≡ storeElement (satfinite E4M3 of float32(x / scale), decoded) on 1 million values', { skip: !native }, () => {
  const rng = createRng(8);
  const n = 1 << 20;
  const src = Float32Array.from({ length: n }, (_, i) => (i % 7 === 0 ? rng.normal() * 1e-3 : i % 11 === 0 ? rng.normal() * 1000 : rng.normal() * 3));
  src[0] = NaN;
  src[1] = Infinity;
  src[2] = -0;
  for (const scale of [1, 0.0173, 0.25]) {
    const codes = new Uint8Array(n), values = new Float32Array(n);
    native!.storeFp8(codes, values, 0, src, 0, n, scale, FP8_E4M3_DECODE_LUT);
    for (let i = 0; i < n; i++) {
      const want = encodeFp8(Math.fround(src[i]) / Math.fround(scale), 'e4m3fn', 'satfinite');
      if (codes[i] !== want) assert.fail(`x ${src[i]} scale ${scale}: code ${codes[i]} ≠ ${want}`);
      if (!Object.is(values[i], FP8_E4M3_DECODE_LUT[want])) assert.fail(`x ${src[i]}: value ${values[i]}`);
    }
  }
});
