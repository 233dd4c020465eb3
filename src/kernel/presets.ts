/**
 * Test-vector presets: which cases `faultline kernel vectors` writes. Each preset sweeps
 * seq_len across the sliding window (below it, at it, and past it through every page alignment),
 * the spec-decode depth q_len_per_req, the query dtype and window on/off, with the KV cache in FP8 —
 * the conditions under which the trtllm-gen defect was reported (research attention-numerics.md §6 D1)
 * and each of its controls. Scales are calibrated (amax / 448, so ≠ 1.0) unless asked otherwise,
 * because the scale-bookkeeping defect (D2) is invisible with unit scales.
 */
import { UserError } from '../core/errors.js';
import type { KvDtypeName, QDtype } from './dump-metadata.js';

export interface PresetSpec {
  name: string;
  description: string;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  pageSize: number;
  /** sliding_window (window_left = sliding_window − 1 when the window is on). */
  slidingWindow: number;
  smScale: number;
  seqLens: number[];
  qLens: number[];
  qDtypes: QDtype[];
  /** true = window on, false = window_left −1. */
  windowed: boolean[];
  kvDtypes: KvDtypeName[];
  /** Std of the real Q and K entries, and of V. */
  qkStd: number;
  vStd: number;
  /** Extra blocks no request uses, filled with large values, so a kernel that reads the wrong page is caught. */
  junkBlocks: number;
}

const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

/**
 * Softmax-friendly data (sm_scale = head_dim^-0.5 on unit-variance Q, K): attention spreads over the
 * window, so a page read wrongly moves a quarter of the weight and every such (row, head) shows an
 * error far beyond tolerance — a localization test needs that, whatever the random draw.
 */
/** The grid both spec-decode sweeps run: every q_len the report names, Q BF16 and FP8, window on and off, FP8 KV. */
const SPEC_DECODE_SWEEP = {
  qLens: [1, 2, 4, 5, 8, 16],
  qDtypes: ['bf16', 'fp8_e4m3'],
  windowed: [true, false],
  kvDtypes: ['fp8_e4m3'],
  qkStd: 1,
  vStd: 2,
  junkBlocks: 2,
} satisfies Partial<PresetSpec>;

/**
 * Real kernels tile keys by 16–256 and skip whole tiles before a row's window start; a start rounded
 * down to a tile only shows once it lies past the tile. Two requests at or below the window are the
 * control; the rest put the last row's window start past 64, 128 and 256 keys at offsets that avoid
 * multiples of 16 (so page, 32-, 64- and 128-key tiles each round differently).
 */
const TILE_OFFSET_SEQ_LENS = [50, 64, 97, 139, 158, 187, 211, 246, 263, 290, 317, 341, 362, 395, 419, 437, 466, 500];

export const PRESETS: Record<string, PresetSpec> = {
  'swa-specdec-sweep': {
    name: 'swa-specdec-sweep',
    description:
      'window 64, page 16, 4 q heads / 2 kv heads, head_dim 64; seq_len 60–100 (below the window and 2½ page cycles past it, every alignment); q_len_per_req 1,2,4,5,8,16; Q BF16 and FP8; window on and off; FP8 KV; calibrated scales',
    numHeads: 4,
    numKvHeads: 2,
    headDim: 64,
    pageSize: 16,
    slidingWindow: 64,
    smScale: 1 / 8,
    seqLens: range(60, 100),
    ...SPEC_DECODE_SWEEP,
  },
  'swa-specdec-large': {
    name: 'swa-specdec-large',
    description:
      'benchmark size: window 256, page 16, 8 q heads / 2 kv heads, head_dim 128; seq_len 240–300; q_len_per_req 1,2,4,5,8,16; Q BF16 and FP8; window on and off; FP8 KV; calibrated scales',
    numHeads: 8,
    numKvHeads: 2,
    headDim: 128,
    pageSize: 16,
    slidingWindow: 256,
    smScale: 128 ** -0.5,
    seqLens: range(240, 300),
    ...SPEC_DECODE_SWEEP,
  },
  'swa-tile-offsets': {
    name: 'swa-tile-offsets',
    description:
      'window 64, page 16, 4 q heads / 2 kv heads, head_dim 64 (the sweep geometry); seq_len 50–500, so window starts lie past 64, 128 and 256 keys at offsets that are no multiple of 16, 32 or 64 (a start rounded down to a kernel tile is told apart from "no window"); q_len_per_req 1,4,8,16; Q BF16 and FP8; window on and off; FP8 KV and the BF16-KV control',
    numHeads: 4,
    numKvHeads: 2,
    headDim: 64,
    pageSize: 16,
    slidingWindow: 64,
    smScale: 1 / 8,
    seqLens: TILE_OFFSET_SEQ_LENS,
    qLens: [1, 4, 8, 16],
    qDtypes: ['bf16', 'fp8_e4m3'],
    windowed: [true, false],
    kvDtypes: ['fp8_e4m3', 'bf16'],
    qkStd: 1,
    vStd: 2,
    junkBlocks: 2,
  },
  'swa-tile-offsets-large': {
    name: 'swa-tile-offsets-large',
    description:
      'window 256, page 16, 8 q heads / 2 kv heads, head_dim 128 (the large geometry); seq_len 240–760, so window starts lie past 256 keys at varied offsets; q_len_per_req 1,4,8,16; Q BF16 and FP8; window on and off; FP8 KV',
    numHeads: 8,
    numKvHeads: 2,
    headDim: 128,
    pageSize: 16,
    slidingWindow: 256,
    smScale: 128 ** -0.5,
    seqLens: [240, 256, 301, 334, 389, 421, 467, 531, 575, 613, 690, 747],
    qLens: [1, 4, 8, 16],
    qDtypes: ['bf16', 'fp8_e4m3'],
    windowed: [true, false],
    kvDtypes: ['fp8_e4m3'],
    qkStd: 1,
    vStd: 2,
    junkBlocks: 2,
  },
  'kv-dtype-controls': {
    name: 'kv-dtype-controls',
    description:
      'the BF16-KV control beside FP8 KV: window 64, page 16, 4/2 heads, head_dim 64; seq_len 60–100; q_len_per_req 4, 8; Q BF16; window on',
    numHeads: 4,
    numKvHeads: 2,
    headDim: 64,
    pageSize: 16,
    slidingWindow: 64,
    smScale: 1 / 8,
    seqLens: range(60, 100),
    qLens: [4, 8],
    qDtypes: ['bf16'],
    windowed: [true],
    kvDtypes: ['fp8_e4m3', 'bf16'],
    qkStd: 1,
    vStd: 2,
    junkBlocks: 2,
  },
};

export const DEFAULT_PRESET = 'swa-specdec-sweep';

export function presetByName(name: string): PresetSpec {
  const p = PRESETS[name];
  if (!p)
    throw new UserError(`unknown preset "${name}"`, {
      code: 'E_USAGE',
      hint: `presets: ${Object.keys(PRESETS).join(', ')}`,
    });
  return p;
}
