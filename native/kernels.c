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
#include <stdio.h>
#include <stdlib.h>
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

/*
 * reduce16 for four accumulators at once (D a multiple of 16: no 4-float chunks, s = 0.0), the same
 * additions in the same order: each accumulator's (a_0 + a_1) + (a_2 + a_3) by 128-bit lanes, then
 * (v_0 + v_1) + (v_2 + v_3) within a lane, then + 0.0 (which turns -0 into +0, as the scalar sum
 * does). Floating-point addition is commutative bit for bit, so pairing b + a for a + b is exact.
 */
__attribute__((target("avx512f"))) static inline void reduce4_512(float *out, const __m512 acc[]) {
  const __m512 ab = _mm512_add_ps(_mm512_shuffle_f32x4(acc[0], acc[1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(acc[0], acc[1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512 cd = _mm512_add_ps(_mm512_shuffle_f32x4(acc[2], acc[3], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(acc[2], acc[3], _MM_SHUFFLE(3, 1, 3, 1)));
  /* lanes of v: [v of acc 0 | acc 1 | acc 2 | acc 3] */
  const __m512 v = _mm512_add_ps(_mm512_shuffle_f32x4(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(ab, cd, _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512 w = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1)));
  const __m512 t = _mm512_add_ps(_mm512_add_ps(w, _mm512_permute_ps(w, _MM_SHUFFLE(1, 0, 3, 2))), _mm512_setzero_ps());
  _mm_storeu_ps(out, _mm512_castps512_ps128(_mm512_maskz_compress_ps(0x1111, t)));
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
    for (int r = 0; r < R; r++) {                                                                               \
      if (K == 4 && D16 == D) {                                                                                 \
        reduce4_512(out + (size_t)r * ldo + o, acc[r]);                                                         \
        continue;                                                                                               \
      }                                                                                                         \
      for (int k = 0; k < K; k++) {                                                                             \
        float a[16];                                                                                            \
        _mm512_storeu_ps(a, acc[r][k]);                                                                         \
        out[(size_t)r * ldo + o + k] = finish(a, wb + (size_t)(o + k) * D * es, bf16, x + (size_t)r * D, D16, D); \
      }                                                                                                         \
    }                                                                                                           \
  }
TILE512(1, 4)
TILE512(1, 1)
TILE512(2, 4)
TILE512(3, 4)
TILE512(4, 4)
TILE512(2, 1)
TILE512(3, 1)
TILE512(4, 1)
TILE512(5, 4)
TILE512(6, 4)
TILE512(5, 1)
TILE512(6, 1)

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
  static const tile_fn t512[7][2] = {{0, 0}, {tile512_1x1, tile512_1x4}, {tile512_2x1, tile512_2x4}, {tile512_3x1, tile512_3x4}, {tile512_4x1, tile512_4x4}, {tile512_5x1, tile512_5x4}, {tile512_6x1, tile512_6x4}};
  static const tile_fn t256[3][2] = {{0, 0}, {tile256_1x1, tile256_1x4}, {tile256_2x1, tile256_2x2}};
  const int maxRows = path == PATH_AVX512 ? 6 : 2;
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

/* ---- reference attention, one query row (attention/reference-backend.ts: the spec's float64 bits) ----
 *
 * The keys of KV head g at positions lo .. lo + n - 1 of a paged HND cache ([block, 2 (K, V), Hkv, P,
 * hd] per layer; `table` the sequence's blocks). The query heads of g go two at a time (a pair; an
 * unpaired last head runs as both) and each score is the spec's chain: dot = 0; dot += q[d] * (k[d] *
 * ks) in order of d, float64; s = dot * sm. Lanes of one vector are different keys, so every chain
 * keeps its own order. The exponentials stay in JS (Math.exp has no bit-identical C counterpart);
 * then P.V accumulates in order of j, a vector lane per d, and out = acc / den rounded to float32.
 */

typedef struct {
  const float *kv;
  const int32_t *table;
  int Hq, Hkv, hd, P, lo, n;
} attn_t;

/* walks the K (which = 0) or V (which = 1) rows of head g over the keys, one integer division per page */
typedef struct {
  const attn_t *a;
  int g, which, j, left; /* key j; rows left in its page */
  const float *row;
} rows_t;

static inline rows_t rows_at(const attn_t *a, int g, int which, int j) {
  rows_t r = {a, g, which, j, a->P - j % a->P, NULL};
  r.row = a->kv + ((size_t)(a->table[j / a->P] * 2 + which) * a->Hkv + g) * a->P * a->hd + (size_t)(j % a->P) * a->hd;
  return r;
}

/* the current row, then on to the next key */
static inline const float *next_row(rows_t *r) {
  const float *row = r->row;
  r->j++;
  if (--r->left > 0) r->row += r->a->hd;
  else if (r->j < r->a->lo + r->a->n) *r = rows_at(r->a, r->g, r->which, r->j);
  return row;
}

/* one key's two chains from d = from on (continuing d0, d1) */
static inline void dots_tail(const float *k, int from, int hd, const float *q0, const float *q1, double ks, double *d0, double *d1) {
  for (int d = from; d < hd; d++) {
    double kd = (double)k[d] * ks;
    *d0 = *d0 + (double)q0[d] * kd;
    *d1 = *d1 + (double)q1[d] * kd;
  }
}

/* scores of one head pair over the row's keys: s[2i + lane] (dot * sm), and the pair's maxima */
static void dots_scalar(const attn_t *a, int g, const float *q0, const float *q1, double ks, double sm, double *s) {
  rows_t r = rows_at(a, g, 0, a->lo);
  for (int i = 0; i < a->n; i++) {
    double d0 = 0, d1 = 0;
    dots_tail(next_row(&r), 0, a->hd, q0, q1, ks, &d0, &d1);
    s[2 * i] = d0 * sm;
    s[2 * i + 1] = d1 * sm;
  }
}

/* 8 rows of 8 floats -> 8 columns (r[d][l] = row l's float d) */
__attribute__((target("avx512f"))) static inline void transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; i++) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int h = 0; h < 2; h++) {
    u[4 * h + 0] = _mm256_shuffle_ps(t[4 * h + 0], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h + 0], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; i++) {
    r[i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x20);
    r[4 + i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x31);
  }
}

/* head dims up to this run on the vector path (its widened queries live on the stack) */
#define MAX_HD8 512

/* the same chains, eight keys at a time: a lane per key, each key's floats d .. d + 7 transposed into lanes */
__attribute__((target("avx512f"))) static void dots512(const attn_t *a, int g, const float *q0, const float *q1, double ks, double sm, double *s) {
  const __m512d vks = _mm512_set1_pd(ks);
  const int hd8 = a->hd & ~7;
  double q0d[MAX_HD8], q1d[MAX_HD8]; /* the queries widened once (exact) */
  for (int d = 0; d < hd8; d++) q0d[d] = q0[d], q1d[d] = q1[d];
  rows_t r = rows_at(a, g, 0, a->lo);
  int i = 0;
  for (; i + 8 <= a->n; i += 8) {
    const float *k[8];
    for (int l = 0; l < 8; l++) k[l] = next_row(&r);
    __m512d d0 = _mm512_setzero_pd(), d1 = _mm512_setzero_pd();
    for (int d = 0; d < hd8; d += 8) {
      __m256 c[8];
      for (int l = 0; l < 8; l++) c[l] = _mm256_loadu_ps(k[l] + d);
      transpose8(c);
      for (int e = 0; e < 8; e++) {
        __m512d kd = _mm512_mul_pd(_mm512_cvtps_pd(c[e]), vks);
        d0 = _mm512_add_pd(d0, _mm512_mul_pd(_mm512_set1_pd(q0d[d + e]), kd));
        d1 = _mm512_add_pd(d1, _mm512_mul_pd(_mm512_set1_pd(q1d[d + e]), kd));
      }
    }
    double t0[8], t1[8];
    _mm512_storeu_pd(t0, d0);
    _mm512_storeu_pd(t1, d1);
    for (int l = 0; l < 8; l++) {
      dots_tail(k[l], hd8, a->hd, q0, q1, ks, &t0[l], &t1[l]);
      s[2 * (i + l)] = t0[l] * sm;
      s[2 * (i + l) + 1] = t1[l] * sm;
    }
  }
  for (; i < a->n; i++) {
    double d0 = 0, d1 = 0;
    dots_tail(next_row(&r), 0, a->hd, q0, q1, ks, &d0, &d1);
    s[2 * i] = d0 * sm;
    s[2 * i + 1] = d1 * sm;
  }
}

/* out0/out1 [d] = (sum_i p[2i + lane] * (v_i[d] * vs)) / den[lane] for d from .. hd - 1, scalar */
static void pv_scalar(const attn_t *a, int g, const double *p, double vs, const double *den, float *out0, float *out1, int from) {
  for (int d = from; d < a->hd; d++) {
    double a0 = 0, a1 = 0;
    rows_t r = rows_at(a, g, 1, a->lo);
    for (int i = 0; i < a->n; i++) {
      double v = (double)next_row(&r)[d] * vs;
      a0 = a0 + p[2 * i] * v;
      a1 = a1 + p[2 * i + 1] * v;
    }
    out0[d] = (float)(a0 / den[0]);
    if (out1) out1[d] = (float)(a1 / den[1]);
  }
}

/* W vectors of 8 d at d0: a lane per d, accumulated in order of i */
#define PV512(W)                                                                                                              \
  __attribute__((target("avx512f"))) static void pv512_##W(const attn_t *a, int g, const double *p, double vs, const double *den, \
                                                           float *out0, float *out1, int d0) {                               \
    const __m512d vvs = _mm512_set1_pd(vs);                                                                                   \
    __m512d acc0[W], acc1[W];                                                                                                 \
    for (int b = 0; b < W; b++) acc0[b] = acc1[b] = _mm512_setzero_pd();                                                      \
    rows_t r = rows_at(a, g, 1, a->lo);                                                                                       \
    for (int i = 0; i < a->n; i++) {                                                                                          \
      const float *v = next_row(&r) + d0;                                                                                     \
      const __m512d p0 = _mm512_set1_pd(p[2 * i]), p1 = _mm512_set1_pd(p[2 * i + 1]);                                         \
      for (int b = 0; b < W; b++) {                                                                                           \
        __m512d vd = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_loadu_ps(v + 8 * b)), vvs);                                         \
        acc0[b] = _mm512_add_pd(acc0[b], _mm512_mul_pd(p0, vd));                                                              \
        acc1[b] = _mm512_add_pd(acc1[b], _mm512_mul_pd(p1, vd));                                                              \
      }                                                                                                                       \
    }                                                                                                                         \
    for (int b = 0; b < W; b++) {                                                                                             \
      _mm256_storeu_ps(out0 + d0 + 8 * b, _mm512_cvtpd_ps(_mm512_div_pd(acc0[b], _mm512_set1_pd(den[0]))));                   \
      if (out1) _mm256_storeu_ps(out1 + d0 + 8 * b, _mm512_cvtpd_ps(_mm512_div_pd(acc1[b], _mm512_set1_pd(den[1]))));         \
    }                                                                                                                         \
  }
PV512(4)
PV512(1)

static void pv512(const attn_t *a, int g, const double *p, double vs, const double *den, float *out0, float *out1) {
  int d = 0;
  for (; d + 32 <= a->hd; d += 32) pv512_4(a, g, p, vs, den, out0, out1, d);
  for (; d + 8 <= a->hd; d += 8) pv512_1(a, g, p, vs, den, out0, out1, d);
  pv_scalar(a, g, p, vs, den, out0, out1, d);
}

/* the maxima of one pair's scores, in order of i (as the JS loop compares) */
static void pair_max(const double *s, int n, double *max) {
  max[0] = max[1] = -__builtin_inf();
  for (int i = 0; i < n; i++) {
    if (s[2 * i] > max[0]) max[0] = s[2 * i];
    if (s[2 * i + 1] > max[1]) max[1] = s[2 * i + 1];
  }
}

/* every head pair of one row: scores [pairs of all KV heads][n][2], maxima [pairs][2]; q and out at the row's first head */
static void attn_dots(const attn_t *a, const float *q, double ks, double sm, double *scores, double *maxes) {
  const int perKv = a->Hq / a->Hkv, pairs = (perKv + 1) / 2;
  for (int g = 0; g < a->Hkv; g++)
    for (int pi = 0; pi < pairs; pi++) {
      const int h = g * perKv + 2 * pi, task = g * pairs + pi;
      const float *q0 = q + (size_t)h * a->hd, *q1 = h + 1 < (g + 1) * perKv ? q0 + a->hd : q0;
      double *s = scores + (size_t)task * 2 * a->n;
      if (path == PATH_AVX512 && a->hd <= MAX_HD8) dots512(a, g, q0, q1, ks, sm, s);
      else dots_scalar(a, g, q0, q1, ks, sm, s);
      pair_max(s, a->n, maxes + 2 * task);
    }
}

static void attn_pv(const attn_t *a, const double *weights, const double *dens, double vs, float *out) {
  const int perKv = a->Hq / a->Hkv, pairs = (perKv + 1) / 2;
  for (int g = 0; g < a->Hkv; g++)
    for (int pi = 0; pi < pairs; pi++) {
      const int h = g * perKv + 2 * pi, task = g * pairs + pi;
      float *o0 = out + (size_t)h * a->hd, *o1 = h + 1 < (g + 1) * perKv ? o0 + a->hd : NULL;
      const double *p = weights + (size_t)task * 2 * a->n;
      if (path == PATH_AVX512) pv512(a, g, p, vs, dens + 2 * task, o0, o1);
      else pv_scalar(a, g, p, vs, dens + 2 * task, o0, o1, 0);
    }
}

/* ops.ts rmsNorm, the same float64 and float32 steps: out = f32(x * inv) * f32(1 + w), inv = f32(1 / sqrt(f32(f32(ss / dim) + eps))) */
static void rms_norm(float *out, const float *x, const float *w, int rows, int dim, double eps) {
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * dim;
    float *orow = out + (size_t)r * dim;
    double ss = 0;
    for (int i = 0; i < dim; i++) ss = ss + (double)xr[i] * (double)xr[i];
    const float mean = (float)(ss / dim);
    const float inv = (float)(1.0 / __builtin_sqrt((double)(float)((double)mean + eps)));
    for (int i = 0; i < dim; i++) orow[i] = (float)((double)(float)((double)xr[i] * (double)inv) * (double)(float)(1.0 + (double)w[i]));
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

/*
 * BF16 copies of float32 weight matrices, per thread (Node-API instance data): setBf16(w, bits)
 * registers `bits` (w's values as BF16, the upper halves) and matmul then reads them whenever it is
 * handed w, so the forward passes its float32 weights and still streams half the bytes. An entry
 * holds its copy strongly and w weakly: a matrix collected and another allocated at the same address
 * is not mistaken for it (the weak reference is checked on every match), and dead entries are
 * dropped at the next registration.
 */
typedef struct {
  const void *data;
  size_t length;
  napi_ref matrix; /* weak */
  napi_ref copy;   /* strong */
  const uint16_t *bits;
} bf16_entry;

typedef struct {
  bf16_entry *entries;
  int count, cap;
} bf16_registry;

static void registry_free(napi_env env, void *data, void *hint) {
  (void)env, (void)hint;
  bf16_registry *r = data;
  free(r->entries);
  free(r);
}

static int alive(napi_env env, napi_ref ref) {
  napi_value v = NULL;
  return napi_get_reference_value(env, ref, &v) == napi_ok && v != NULL;
}

static const uint16_t *bf16_copy_of(napi_env env, const void *data, size_t length) {
  bf16_registry *r = NULL;
  if (napi_get_instance_data(env, (void **)&r) != napi_ok || !r) return NULL;
  for (int i = 0; i < r->count; i++)
    if (r->entries[i].data == data && r->entries[i].length == length && alive(env, r->entries[i].matrix)) return r->entries[i].bits;
  return NULL;
}

/* setBf16(w: Float32Array, bits: Uint16Array of the same length) */
static napi_value js_set_bf16(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *w, *bits;
  size_t wLen, bLen;
  if (argc != 2 || !typed(env, argv[0], napi_float32_array, napi_float32_array, &w, &wLen, NULL) || !typed(env, argv[1], napi_uint16_array, napi_uint16_array, &bits, &bLen, NULL) || wLen != bLen) {
    napi_throw_type_error(env, NULL, "setBf16(w: Float32Array, bits: Uint16Array of w's length)");
    return NULL;
  }
  bf16_registry *r = NULL;
  if (napi_get_instance_data(env, (void **)&r) != napi_ok || !r) {
    napi_throw_error(env, NULL, "setBf16: no registry (out of memory at load)");
    return NULL;
  }
  int kept = 0;
  for (int i = 0; i < r->count; i++) {
    bf16_entry e = r->entries[i];
    if (alive(env, e.matrix) && e.data != w) r->entries[kept++] = e;
    else napi_delete_reference(env, e.matrix), napi_delete_reference(env, e.copy);
  }
  r->count = kept;
  if (r->count == r->cap) {
    int cap = r->cap ? 2 * r->cap : 64;
    bf16_entry *grown = realloc(r->entries, (size_t)cap * sizeof *grown);
    if (!grown) {
      napi_throw_error(env, NULL, "setBf16: out of memory");
      return NULL;
    }
    r->entries = grown, r->cap = cap;
  }
  bf16_entry *e = &r->entries[r->count++];
  e->data = w, e->length = wLen, e->bits = bits;
  napi_create_reference(env, argv[0], 0, &e->matrix);
  napi_create_reference(env, argv[1], 1, &e->copy);
  return NULL;
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
  const uint16_t *bits = wType == napi_float32_array ? bf16_copy_of(env, w, wLen) : NULL;
  matmul((float *)out, (const float *)x, bits ? (const void *)bits : w, bits || wType == napi_uint16_array, n, D, O);
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

static int ints(napi_env env, napi_value *argv, int32_t *out, int count) {
  for (int i = 0; i < count; i++)
    if (napi_get_value_int32(env, argv[i], &out[i]) != napi_ok) return 0;
  return 1;
}

/*
 * The attention arguments both calls share (kv, table, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P at
 * argv[0..9]): query row t of a request of qLen new rows sits at p = seqLen - qLen + t and sees keys
 * max(0, p - windowLeft) .. p (all from 0 when windowLeft < 0), as attention/reference.ts keyRange
 * says. 0 with an exception thrown when out of range.
 */
static int attn_args(napi_env env, napi_value *argv, attn_t *a, size_t *pairsTimes2n) {
  void *kv, *table;
  size_t kvLen, tableLen;
  int32_t v[8];
  if (!typed(env, argv[0], napi_float32_array, napi_float32_array, &kv, &kvLen, NULL) || !typed(env, argv[1], napi_int32_array, napi_int32_array, &table, &tableLen, NULL) || !ints(env, argv + 2, v, 8)) {
    napi_throw_type_error(env, NULL, "attention: (kv: Float32Array, table: Int32Array, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P) expected");
    return 0;
  }
  const int seqLen = v[0], qLen = v[1], t = v[2], windowLeft = v[3], p = seqLen - qLen + t;
  const int lo = windowLeft < 0 ? 0 : (p - windowLeft > 0 ? p - windowLeft : 0);
  *a = (attn_t){(const float *)kv, (const int32_t *)table, v[4], v[5], v[6], v[7], lo, p - lo + 1};
  if (qLen < 1 || t < 0 || t >= qLen || p < 0 || a->Hq < 1 || a->Hkv < 1 || a->Hq % a->Hkv != 0 || a->hd < 1 || a->P < 1 || (size_t)((a->lo + a->n - 1) / a->P) >= tableLen) {
    napi_throw_range_error(env, NULL, "attention: shapes out of range");
    return 0;
  }
  const size_t blockElems = (size_t)2 * a->Hkv * a->P * a->hd;
  if (kvLen >= ((size_t)1 << 31)) {
    napi_throw_range_error(env, NULL, "attention: KV storage beyond 2^31 elements");
    return 0;
  }
  for (int p = a->lo / a->P; p <= (a->lo + a->n - 1) / a->P; p++)
    if (a->table[p] < 0 || ((size_t)a->table[p] + 1) * blockElems > kvLen) {
      napi_throw_range_error(env, NULL, "attention: a block of the table lies outside the KV storage");
      return 0;
    }
  *pairsTimes2n = (size_t)a->Hkv * ((a->Hq / a->Hkv + 1) / 2) * 2 * a->n;
  return 1;
}

/* a call's arguments (exactly `want` of them) and the shared attention ones among them; 0 with an exception thrown */
static int attn_call(napi_env env, napi_callback_info info, napi_value *argv, size_t want, const char *name, attn_t *a, size_t *need) {
  size_t argc = want;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != want) {
    char message[64];
    snprintf(message, sizeof message, "%s takes %zu arguments", name, want);
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  return attn_args(env, argv, a, need);
}

/* attnDots(kv, table, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P, q: Float32Array, qAt, ks, sm, scores: Float64Array, maxes: Float64Array) -> the row's key count */
static napi_value js_attn_dots(napi_env env, napi_callback_info info) {
  napi_value argv[16];
  attn_t a;
  size_t need;
  if (!attn_call(env, info, argv, 16, "attnDots", &a, &need)) return NULL;
  void *q, *scores, *maxes;
  size_t qLen, sLen, mLen;
  int32_t qAt;
  double ks, sm;
  if (!typed(env, argv[10], napi_float32_array, napi_float32_array, &q, &qLen, NULL) || !ints(env, argv + 11, &qAt, 1) || napi_get_value_double(env, argv[12], &ks) != napi_ok ||
      napi_get_value_double(env, argv[13], &sm) != napi_ok || !typed(env, argv[14], napi_float64_array, napi_float64_array, &scores, &sLen, NULL) ||
      !typed(env, argv[15], napi_float64_array, napi_float64_array, &maxes, &mLen, NULL)) {
    napi_throw_type_error(env, NULL, "attnDots(kv, table, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P, q: Float32Array, qAt, ks, sm, scores: Float64Array, maxes: Float64Array)");
    return NULL;
  }
  if (qAt < 0 || (size_t)qAt + (size_t)a.Hq * a.hd > qLen || sLen < need || mLen < need / a.n) {
    napi_throw_range_error(env, NULL, "attnDots: q, scores or maxes shorter than the shapes say");
    return NULL;
  }
  attn_dots(&a, (const float *)q + qAt, ks, sm, (double *)scores, (double *)maxes);
  napi_value n;
  napi_create_int32(env, a.n, &n);
  return n;
}

/* attnPv(kv, table, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P, weights: Float64Array, dens: Float64Array, vs, out: Float32Array, outAt) */
static napi_value js_attn_pv(napi_env env, napi_callback_info info) {
  napi_value argv[15];
  attn_t a;
  size_t need;
  if (!attn_call(env, info, argv, 15, "attnPv", &a, &need)) return NULL;
  void *w, *dens, *out;
  size_t wLen, dLen, outLen;
  int32_t outAt;
  double vs;
  if (!typed(env, argv[10], napi_float64_array, napi_float64_array, &w, &wLen, NULL) || !typed(env, argv[11], napi_float64_array, napi_float64_array, &dens, &dLen, NULL) ||
      napi_get_value_double(env, argv[12], &vs) != napi_ok || !typed(env, argv[13], napi_float32_array, napi_float32_array, &out, &outLen, NULL) || !ints(env, argv + 14, &outAt, 1)) {
    napi_throw_type_error(env, NULL, "attnPv(kv, table, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P, weights: Float64Array, dens: Float64Array, vs, out: Float32Array, outAt)");
    return NULL;
  }
  if (outAt < 0 || (size_t)outAt + (size_t)a.Hq * a.hd > outLen || wLen < need || dLen < need / a.n) {
    napi_throw_range_error(env, NULL, "attnPv: weights, dens or out shorter than the shapes say");
    return NULL;
  }
  attn_pv(&a, (const double *)w, (const double *)dens, vs, (float *)out + outAt);
  return NULL;
}

/* rmsNorm(out: Float32Array, x: Float32Array, w: Float32Array, rows, dim, eps) */
static napi_value js_rms_norm(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *out, *x, *w;
  size_t outLen, xLen, wLen;
  int32_t v[2];
  double eps;
  if (argc != 6 || !typed(env, argv[0], napi_float32_array, napi_float32_array, &out, &outLen, NULL) || !typed(env, argv[1], napi_float32_array, napi_float32_array, &x, &xLen, NULL) ||
      !typed(env, argv[2], napi_float32_array, napi_float32_array, &w, &wLen, NULL) || !ints(env, argv + 3, v, 2) || napi_get_value_double(env, argv[5], &eps) != napi_ok) {
    napi_throw_type_error(env, NULL, "rmsNorm(out: Float32Array, x: Float32Array, w: Float32Array, rows, dim, eps)");
    return NULL;
  }
  if (v[0] < 0 || v[1] < 0 || outLen < (size_t)v[0] * v[1] || xLen < (size_t)v[0] * v[1] || wLen < (size_t)v[1]) {
    napi_throw_range_error(env, NULL, "rmsNorm: an array is shorter than rows and dim say");
    return NULL;
  }
  rms_norm((float *)out, (const float *)x, (const float *)w, v[0], v[1], eps);
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
  /* FAULTLINE_NATIVE_ISA=avx2 runs the AVX2 paths on an AVX-512 machine (so they can be tested there) */
  const char *isa = getenv("FAULTLINE_NATIVE_ISA");
  if (isa && strcmp(isa, "avx2") == 0 && path == PATH_AVX512) path = PATH_AVX2;
  napi_value name;
  export_fn(env, exports, "matmul", js_matmul);
  export_fn(env, exports, "roundBf16", js_round_bf16);
  export_fn(env, exports, "storeFp8", js_store_fp8);
  export_fn(env, exports, "attnDots", js_attn_dots);
  export_fn(env, exports, "attnPv", js_attn_pv);
  export_fn(env, exports, "rmsNorm", js_rms_norm);
  export_fn(env, exports, "setBf16", js_set_bf16);
  bf16_registry *registry = calloc(1, sizeof *registry);
  if (registry) napi_set_instance_data(env, registry, registry_free, NULL);
  napi_create_string_utf8(env, path == PATH_AVX512 ? "avx512" : path == PATH_AVX2 ? "avx2" : "none", NAPI_AUTO_LENGTH, &name);
  napi_set_named_property(env, exports, "isa", name);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
