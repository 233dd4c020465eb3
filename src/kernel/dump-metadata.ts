/**
 * The string metadata of a kernel dump (docs/kernel-dumps.md): parsed strictly, because a number
 * that silently parses wrong (a window of "63 " read as NaN, a page size the tensors disagree with)
 * would make verify compare against the wrong reference. safetensors metadata is string → string,
 * so every number is written as its shortest round-tripping decimal.
 */
import { UserError } from '../core/errors.js';

export const DUMP_FORMAT = 'faultline-kernel-dump/1';
export const DUMP_ERROR = 'E_KERNEL_DUMP';

/** metadata `poison`: KV slots outside every window hold NaN on purpose (kernel vectors --nan-outside-window). */
export const NAN_POISON = 'nan-outside-window';

export type QDtype = 'bf16' | 'fp8_e4m3';
export type KvDtypeName = 'bf16' | 'fp8_e4m3';
export type OutDtype = 'bf16' | 'fp16' | 'fp32';
export type KvLayout = 'HND' | 'NHD';

export interface DumpMeta {
  qLenPerReq: number;
  /** sliding_window − 1, or −1 for no window (FlashInfer's window_left). */
  windowLeft: number;
  /** The model's softmax scale (before any q/k scale). */
  smScale: number;
  /** What the kernel was (or is to be) passed: O = bmm2 · softmax(bmm1 · Q·Kᵀ) · V on stored values. */
  bmm1Scale: number;
  bmm2Scale: number;
  qDtype: QDtype;
  kvDtype: KvDtypeName;
  outDtype: OutDtype;
  pageSize: number;
  kvLayout: KvLayout;
  /** Who wrote `output` (absent in input-only vectors). */
  kernel?: string;
  kernelVersion?: string;
  /** Everything else in the metadata (case id, preset, seed, provenance), kept as written. */
  extra: Record<string, string>;
}

const KNOWN_KEYS = new Set([
  'format',
  'q_len_per_req',
  'window_left',
  'sm_scale',
  'bmm1_scale',
  'bmm2_scale',
  'q_dtype',
  'kv_dtype',
  'out_dtype',
  'page_size',
  'kv_layout',
  'kernel',
  'kernel_version',
]);

function bad(label: string, key: string, want: string, got: string | undefined): never {
  const what = got === undefined ? 'is missing' : `must be ${want}, got ${JSON.stringify(got)}`;
  throw new UserError(`${label}: metadata "${key}" ${what}`, {
    code: DUMP_ERROR,
    hint: 'the dump metadata is described in docs/kernel-dumps.md; `faultline kernel vectors` writes valid dumps',
  });
}

function int(label: string, md: Record<string, string>, key: string, min: number): number {
  const s = md[key];
  if (s === undefined || !/^-?\d{1,9}$/.test(s) || Number(s) < min) bad(label, key, `an integer ≥ ${min}`, s);
  return Number(s);
}

function positive(label: string, md: Record<string, string>, key: string): number {
  const s = md[key];
  const ok = s !== undefined && /^[+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s);
  const x = ok ? Number(s) : NaN;
  if (!(Number.isFinite(x) && x > 0 && Math.fround(x) > 0 && Number.isFinite(Math.fround(x)))) bad(label, key, 'a finite float32 number > 0', s);
  return Math.fround(x); // scales are float32 kernel arguments
}

function oneOf<T extends string>(label: string, md: Record<string, string>, key: string, values: readonly T[], fallback?: T): T {
  const s = md[key];
  if (s === undefined && fallback !== undefined) return fallback;
  if (s === undefined || !(values as readonly string[]).includes(s)) bad(label, key, `one of ${values.join(', ')}`, s);
  return s as T;
}

/** Parses and checks the metadata of one dump; `label` (the file) prefixes every error. */
export function parseDumpMeta(md: Record<string, string>, label: string): DumpMeta {
  if (md.format !== undefined && md.format !== DUMP_FORMAT) bad(label, 'format', `"${DUMP_FORMAT}" (or absent)`, md.format);
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(md)) if (!KNOWN_KEYS.has(k)) extra[k] = v;
  return {
    qLenPerReq: int(label, md, 'q_len_per_req', 1),
    windowLeft: int(label, md, 'window_left', -1),
    smScale: positive(label, md, 'sm_scale'),
    bmm1Scale: positive(label, md, 'bmm1_scale'),
    bmm2Scale: positive(label, md, 'bmm2_scale'),
    qDtype: oneOf(label, md, 'q_dtype', ['bf16', 'fp8_e4m3'] as const),
    kvDtype: oneOf(label, md, 'kv_dtype', ['bf16', 'fp8_e4m3'] as const),
    outDtype: oneOf(label, md, 'out_dtype', ['bf16', 'fp16', 'fp32'] as const),
    pageSize: int(label, md, 'page_size', 1),
    kvLayout: oneOf(label, md, 'kv_layout', ['HND', 'NHD'] as const, 'HND'),
    kernel: md.kernel,
    kernelVersion: md.kernel_version,
    extra,
  };
}

/** A float32-exact decimal: the shortest string that reads back as the same float32. */
export function float32String(x: number): string {
  const f = Math.fround(x);
  for (let digits = 1; digits <= 17; digits++) {
    const s = f.toPrecision(digits);
    if (Math.fround(Number(s)) === f) return String(Number(s));
  }
  return String(f);
}

/** The metadata strings of a dump (extra keys first, so the known keys win). */
export function formatDumpMeta(m: DumpMeta): Record<string, string> {
  const md: Record<string, string> = { ...m.extra };
  md.format = DUMP_FORMAT;
  md.q_len_per_req = String(m.qLenPerReq);
  md.window_left = String(m.windowLeft);
  md.sm_scale = float32String(m.smScale);
  md.bmm1_scale = float32String(m.bmm1Scale);
  md.bmm2_scale = float32String(m.bmm2Scale);
  md.q_dtype = m.qDtype;
  md.kv_dtype = m.kvDtype;
  md.out_dtype = m.outDtype;
  md.page_size = String(m.pageSize);
  md.kv_layout = m.kvLayout;
  if (m.kernel !== undefined) md.kernel = m.kernel;
  if (m.kernelVersion !== undefined) md.kernel_version = m.kernelVersion;
  return md;
}
