/*
 * faultline's native matmul (a Node-API addon): out[r, o] = sum_i w[o, i] * x[r, i], float32,
 * bit-identical to the WebAssembly SIMD kernels (src/engine/wasm/matvec-module.ts) output by output:
 *
 *   four float32x4 accumulators a_q (q = 0..3) over 16-float chunks, a_q taking floats 16j + 4q ..
 *   16j + 4q + 3 of chunk j in order of j; then 4-float chunks into a_0; a scalar tail s from 0.0;
 *   v = (a_0 + a_1) + (a_2 + a_3); out = ((v_0 + v_1) + (v_2 + v_3)) + s.
 *   Every product is rounded to float32 before its add (no FMA: built with -ffp-contract=off, and
 *   the intrinsics below are separate multiplies and adds).
 *
 * One 16-lane AVX-512 register holds the four a_q (lane 4q + l is lane l of a_q), two 8-lane AVX2
 * registers do the same where AVX-512 is missing; the CPU is asked at load time and the addon reports
 * which path it has (or none: then the engine keeps its WebAssembly kernels).
 *
 * Weights come as float32 or as BF16 bits (uint16: the upper half of a float32, widened exactly by a
 * shift), so a BF16 checkpoint's weights can stay half the size in memory. Several rows run in tiles
 * (up to 4 rows x 4 outputs) so each weight vector is loaded once for all of a tile's rows; each
 * output's sum is the same chain of operations as for one row: batch-invariant.
 *
 * Two element-wise stores the forward does per row are here too, bit-identical to their JS: BF16
 * rounding of a tensor (ops.ts roundBf16) and the FP8 KV-cache write (kv-cache/cache.ts storeElement:
 * satfinite E4M3 of float32(x / scale), as numerics/fp8.ts encodes it).
 */
#include <node_api.h>
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

typedef enum { PATH_NONE = 0, PATH_AVX2 = 1, PATH_AVX512 = 2 } path_t;
static path_t path = PATH_NONE;

/* ---- reduction and tails, shared by both paths (scalar code, same order as the wasm kernel) ---- */

static inline float widen_bf16(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* out = ((v0 + v1) + (v2 + v3)) + s where v = (a0 + a1) + (a2 + a3), a[16] = the four accumulators */
static inline float reduce16(const float a[16], float s) {
  float v[4];
  for (int l = 0; l < 4; l++) v[l] = (a[l] + a[4 + l]) + (a[8 + l] + a[12 + l]);
  return ((v[0] + v[1]) + (v[2] + v[3])) + s;
}

/* the 4-float chunks (into a_0) and the scalar tail after the 16-float chunks, for one output */
static inline float finish(float a[16], const void *w, int bf16, const float *x, int from, int D) {
  int i = from;
  for (; i + 4 <= D; i += 4)
    for (int l = 0; l < 4; l++) {
      float wv = bf16 ? widen_bf16(((const uint16_t *)w)[i + l]) : ((const float *)w)[i + l];
      float p = wv * x[i + l];
      a[l] = a[l] + p;
    }
  float s = 0.0f;
  for (; i < D; i++) {
    float wv = bf16 ? widen_bf16(((const uint16_t *)w)[i]) : ((const float *)w)[i];
    float p = wv * x[i];
    s = s + p;
  }
  return reduce16(a, s);
}

/* ---- AVX-512: one register = the four accumulators ---- */

__attribute__((target("avx512f,avx512bw"))) static inline __m512 load16_512(const void *w, int bf16, int i) {
  if (!bf16) return _mm512_loadu_ps((const float *)w + i);
  __m256i h = _mm256_loadu_si256((const __m256i *)((const uint16_t *)w + i));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* R rows x K outputs; D16 = D rounded down to a multiple of 16 */
#define TILE512(R, K)                                                                                           \
  __attribute__((target("avx512f,avx512bw"))) static void tile512_##R##x##K(float *out, int ldo, const float *x, \
                                                                         const void *w, int bf16, int D, int o) { \
    __m512 acc[R][K];                                                                                           \
    for (int r = 0; r < R; r++)                                                                                 \
      for (int k = 0; k < K; k++) acc[r][k] = _mm512_setzero_ps();                                              \
    const size_t es = bf16 ? 2 : 4;                                                                             \
    const char *wb = (const char *)w;                                                                           \
    int D16 = D & ~15;                                                                                          \
    for (int i = 0; i < D16; i += 16) {                                                                         \
      __m512 wv[K];                                                                                             \
      for (int k = 0; k < K; k++) wv[k] = load16_512(wb + (size_t)(o + k) * D * es, bf16, i);                  \
      for (int r = 0; r < R; r++) {                                                                             \
        __m512 xv = _mm512_loadu_ps(x + (size_t)r * D + i);                                                     \
        for (int k = 0; k < K; k++) acc[r][k] = _mm512_add_ps(acc[r][k], _mm512_mul_ps(wv[k], xv));             \
      }                                                                                                         \
    }                                                                                                           \
    for (int r = 0; r < R; r++)                                                                                 \
      for (int k = 0; k < K; k++) {                                                                             \
        float a[16];                                                                                            \
        _mm512_storeu_ps(a, acc[r][k]);                                                                         \
        out[(size_t)r * ldo + o + k] = finish(a, wb + (size_t)(o + k) * D * es, bf16, x + (size_t)r * D, D16, D); \
      }                                                                                                         \
  }
TILE512(1, 4)
TILE512(1, 1)
TILE512(2, 4)
TILE512(3, 4)
TILE512(4, 4)
TILE512(2, 1)
TILE512(3, 1)
TILE512(4, 1)

/* ---- AVX2: two registers (a_0 a_1 | a_2 a_3) ---- */

__attribute__((target("avx2"))) static inline __m256 load8_256(const void *w, int bf16, int i) {
  if (!bf16) return _mm256_loadu_ps((const float *)w + i);
  __m128i h = _mm_loadu_si128((const __m128i *)((const uint16_t *)w + i));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

#define TILE256(R, K)                                                                                         \
  __attribute__((target("avx2"))) static void tile256_##R##x##K(float *out, int ldo, const float *x,          \
                                                                const void *w, int bf16, int D, int o) {     \
    __m256 lo[R][K], hi[R][K];                                                                                \
    for (int r = 0; r < R; r++)                                                                               \
      for (int k = 0; k < K; k++) lo[r][k] = hi[r][k] = _mm256_setzero_ps();                                  \
    const size_t es = bf16 ? 2 : 4;                                                                           \
    const char *wb = (const char *)w;                                                                         \
    int D16 = D & ~15;                                                                                        \
    for (int i = 0; i < D16; i += 16) {                                                                       \
      __m256 wl[K], wh[K];                                                                                    \
      for (int k = 0; k < K; k++) {                                                                           \
        wl[k] = load8_256(wb + (size_t)(o + k) * D * es, bf16, i);                                            \
        wh[k] = load8_256(wb + (size_t)(o + k) * D * es, bf16, i + 8);                                        \
      }                                                                                                       \
      for (int r = 0; r < R; r++) {                                                                           \
        __m256 xl = _mm256_loadu_ps(x + (size_t)r * D + i), xh = _mm256_loadu_ps(x + (size_t)r * D + i + 8); \
        for (int k = 0; k < K; k++) {                                                                         \
          lo[r][k] = _mm256_add_ps(lo[r][k], _mm256_mul_ps(wl[k], xl));                                       \
          hi[r][k] = _mm256_add_ps(hi[r][k], _mm256_mul_ps(wh[k], xh));                                       \
        }                                                                                                     \
      }                                                                                                       \
    }                                                                                                         \
    for (int r = 0; r < R; r++)                                                                               \
      for (int k = 0; k < K; k++) {                                                                           \
        float a[16];                                                                                          \
        _mm256_storeu_ps(a, lo[r][k]);                                                                        \
        _mm256_storeu_ps(a + 8, hi[r][k]);                                                                    \
        out[(size_t)r * ldo + o + k] = finish(a, wb + (size_t)(o + k) * D * es, bf16, x + (size_t)r * D, D16, D); \
      }                                                                                                       \
  }
TILE256(1, 4)
TILE256(1, 1)
TILE256(2, 2)
TILE256(2, 1)

typedef void (*tile_fn)(float *, int, const float *, const void *, int, int, int);

/* out[n, O] = x[n, D] . w[O, D]^T: tiles of up to 4 rows (AVX-512) or 2 rows (AVX2) x 4 outputs */
static void matmul(float *out, const float *x, const void *w, int bf16, int n, int D, int O) {
  static const tile_fn t512[5][2] = {{0, 0}, {tile512_1x1, tile512_1x4}, {tile512_2x1, tile512_2x4}, {tile512_3x1, tile512_3x4}, {tile512_4x1, tile512_4x4}};
  static const tile_fn t256[3][2] = {{0, 0}, {tile256_1x1, tile256_1x4}, {tile256_2x1, tile256_2x2}};
  const int maxRows = path == PATH_AVX512 ? 4 : 2;
  const int wide = path == PATH_AVX512 ? 4 : 0;
  /* outputs in blocks of 64: their weight rows stay in cache across the row tiles */
  for (int o0 = 0; o0 < O; o0 += 64) {
    int o1 = o0 + 64 < O ? o0 + 64 : O;
    for (int r = 0; r < n; r += maxRows) {
      int R = n - r < maxRows ? n - r : maxRows;
      float *orow = out + (size_t)r * O;
      const float *xrow = x + (size_t)r * D;
      int o = o0;
      if (path == PATH_AVX512) {
        for (; o + wide <= o1; o += wide) t512[R][1](orow, O, xrow, w, bf16, D, o);
        for (; o < o1; o++) t512[R][0](orow, O, xrow, w, bf16, D, o);
      } else if (R == 1) {
        for (; o + 4 <= o1; o += 4) t256[1][1](orow, O, xrow, w, bf16, D, o);
        for (; o < o1; o++) t256[1][0](orow, O, xrow, w, bf16, D, o);
      } else {
        for (; o + 2 <= o1; o += 2) t256[2][1](orow, O, xrow, w, bf16, D, o);
        for (; o < o1; o++) t256[2][0](orow, O, xrow, w, bf16, D, o);
      }
    }
  }
}

/* ---- element-wise stores, bit-identical to the JS (ops.ts roundBf16, numerics/fp8.ts encodeE4m3Bits) ---- */

/* RNE to BF16 on the float32 bits; NaN -> the canonical quiet NaN */
static void round_bf16(uint32_t *u, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t b = u[i];
    u[i] = (b & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : ((b + ((b >> 16) & 1u) + 0x7fffu) & 0xffff0000u);
  }
}

/* float32 bits -> E4M3FN code, satfinite (NaN -> 0x7f, |x| >= 448 -> +-448) */
static uint8_t e4m3_satfinite(uint32_t b) {
  uint32_t sign = (b >> 24) & 0x80u, f = b & 0x7fffffffu;
  if (f > 0x7f800000u) return 0x7f;
  if (f >= 0x43f00000u) return (uint8_t)(0x7e | sign);
  if (f < 0x3c800000u) {
    float v;
    memcpy(&v, &f, 4);
    double t = (double)v * 512.0, fl = __builtin_floor(t), rest = t - fl;
    double r = (rest > 0.5 || (rest == 0.5 && ((int64_t)fl & 1))) ? fl + 1 : fl;
    return (uint8_t)(sign | (uint32_t)r);
  }
  uint32_t r = (f + ((uint32_t)(7 - 127) << 23) + 0x7ffffu + ((f >> 20) & 1u)) >> 20;
  if (r == 0x7f) return (uint8_t)(0x7e | sign);
  return (uint8_t)(r | sign);
}

/* codes[at + i] = e4m3(float32(src[i] / scale)), values[at + i] = lut[code], i < n */
static void store_fp8(uint8_t *codes, float *values, size_t at, const float *src, size_t n, float scale, const float *lut) {
  for (size_t i = 0; i < n; i++) {
    float q = (float)((double)src[i] / (double)scale);
    uint32_t b;
    memcpy(&b, &q, 4);
    uint8_t c = e4m3_satfinite(b);
    codes[at + i] = c;
    values[at + i] = lut[c];
  }
}

/* ---- Node-API glue ---- */

static int typed(napi_env env, napi_value v, napi_typedarray_type want1, napi_typedarray_type want2, void **data, size_t *length, napi_typedarray_type *got) {
  bool is;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return 0;
  napi_typedarray_type type;
  if (napi_get_typedarray_info(env, v, &type, length, data, NULL, NULL) != napi_ok) return 0;
  if (type != want1 && type != want2) return 0;
  if (got) *got = type;
  return 1;
}

/* matmul(out: Float32Array, x: Float32Array, w: Float32Array | Uint16Array (BF16 bits), n, D, O) */
static napi_value js_matmul(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 6) {
    napi_throw_type_error(env, NULL, "matmul(out, x, w, n, D, O) takes 6 arguments");
    return NULL;
  }
  void *out, *x, *w;
  size_t outLen, xLen, wLen;
  napi_typedarray_type wType;
  int32_t n, D, O;
  if (!typed(env, argv[0], napi_float32_array, napi_float32_array, &out, &outLen, NULL) ||
      !typed(env, argv[1], napi_float32_array, napi_float32_array, &x, &xLen, NULL) ||
      !typed(env, argv[2], napi_float32_array, napi_uint16_array, &w, &wLen, &wType) ||
      napi_get_value_int32(env, argv[3], &n) != napi_ok || napi_get_value_int32(env, argv[4], &D) != napi_ok ||
      napi_get_value_int32(env, argv[5], &O) != napi_ok) {
    napi_throw_type_error(env, NULL, "matmul(out: Float32Array, x: Float32Array, w: Float32Array | Uint16Array, n, D, O)");
    return NULL;
  }
  if (n < 0 || D < 0 || O < 0 || outLen < (size_t)n * O || xLen < (size_t)n * D || wLen < (size_t)O * D) {
    napi_throw_range_error(env, NULL, "matmul: an array is shorter than n, D and O say");
    return NULL;
  }
  matmul((float *)out, (const float *)x, w, wType == napi_uint16_array, n, D, O);
  return NULL;
}

/* roundBf16(x: Float32Array, len) */
static napi_value js_round_bf16(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *x;
  size_t len;
  int32_t n;
  if (argc != 2 || !typed(env, argv[0], napi_float32_array, napi_float32_array, &x, &len, NULL) || napi_get_value_int32(env, argv[1], &n) != napi_ok || n < 0 || (size_t)n > len) {
    napi_throw_type_error(env, NULL, "roundBf16(x: Float32Array, len ≤ x.length)");
    return NULL;
  }
  round_bf16((uint32_t *)x, (size_t)n);
  return NULL;
}

/* storeFp8(codes: Uint8Array, values: Float32Array, at, src: Float32Array, srcOff, n, scale, lut: Float32Array[256]) */
static napi_value js_store_fp8(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *codes, *values, *src, *lut;
  size_t codesLen, valuesLen, srcLen, lutLen;
  int32_t at, srcOff, n;
  double scale;
  if (argc != 8 || !typed(env, argv[0], napi_uint8_array, napi_uint8_array, &codes, &codesLen, NULL) ||
      !typed(env, argv[1], napi_float32_array, napi_float32_array, &values, &valuesLen, NULL) ||
      napi_get_value_int32(env, argv[2], &at) != napi_ok || !typed(env, argv[3], napi_float32_array, napi_float32_array, &src, &srcLen, NULL) ||
      napi_get_value_int32(env, argv[4], &srcOff) != napi_ok || napi_get_value_int32(env, argv[5], &n) != napi_ok ||
      napi_get_value_double(env, argv[6], &scale) != napi_ok || !typed(env, argv[7], napi_float32_array, napi_float32_array, &lut, &lutLen, NULL)) {
    napi_throw_type_error(env, NULL, "storeFp8(codes, values, at, src, srcOff, n, scale, lut)");
    return NULL;
  }
  if (at < 0 || srcOff < 0 || n < 0 || (size_t)at + n > codesLen || (size_t)at + n > valuesLen || (size_t)srcOff + n > srcLen || lutLen < 256) {
    napi_throw_range_error(env, NULL, "storeFp8: an index is out of range");
    return NULL;
  }
  store_fp8((uint8_t *)codes, (float *)values, (size_t)at, (const float *)src + srcOff, (size_t)n, (float)scale, (const float *)lut);
  return NULL;
}

static void export_fn(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn);
  napi_set_named_property(env, exports, name, fn);
}

static napi_value init(napi_env env, napi_value exports) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) path = PATH_AVX512;
  else if (__builtin_cpu_supports("avx2")) path = PATH_AVX2;
  napi_value name;
  export_fn(env, exports, "matmul", js_matmul);
  export_fn(env, exports, "roundBf16", js_round_bf16);
  export_fn(env, exports, "storeFp8", js_store_fp8);
  napi_create_string_utf8(env, path == PATH_AVX512 ? "avx512" : path == PATH_AVX2 ? "avx2" : "none", NAPI_AUTO_LENGTH, &name);
  napi_set_named_property(env, exports, "isa", name);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
