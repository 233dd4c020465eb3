/**
 * One kernel dump = one safetensors file holding one paged-attention call (docs/kernel-dumps.md):
 *   query        [tokens, Hq, hd]                    BF16 or F8_E4M3 (stored values; FP8 real = code · q_scale)
 *   kv_cache     [blocks, 2, Hkv, page, hd] (HND)    BF16 or F8_E4M3 (FP8 real = code · k_scale / v_scale)
 *                [blocks, 2, page, Hkv, hd] (NHD)
 *   block_tables [batch, max_pages]                  I32 (I64, U32 accepted)
 *   seq_lens     [batch]                             KV length including this call's query rows
 *   output       [tokens, Hq, hd]                    BF16, F16 or F32; absent in input-only vectors
 *   q_scale, k_scale, v_scale                        optional F32 scalars (1.0 when absent)
 * plus the metadata of dump-metadata.ts. Everything the reference will index is checked here, so a
 * hostile file ends in a UserError naming the file and the tensor, never in an out-of-range read.
 */
import { UserError } from '../core/errors.js';
import { openSafetensors, parseSafetensors, serializeSafetensors, writeSafetensors } from '../tensors/safetensors.js';
import { toFloat32, type Tensor } from '../tensors/tensor.js';
import type { DType } from '../tensors/dtypes.js';
import { DUMP_ERROR, NAN_POISON, formatDumpMeta, parseDumpMeta, type DumpMeta, type OutDtype, type QDtype } from './dump-metadata.js';

export interface DumpGeometry {
  batch: number;
  tokens: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  numBlocks: number;
  maxPages: number;
}

export interface DumpScales {
  q: number;
  k: number;
  v: number;
}

export interface KernelDump {
  /** File path (or a label for in-memory dumps). */
  label: string;
  meta: DumpMeta;
  geometry: DumpGeometry;
  query: Tensor;
  kvCache: Tensor;
  /** [batch][maxPages] physical block ids (only the first ⌈seq_len / page⌉ of each row are checked). */
  blockTables: number[][];
  seqLens: number[];
  output?: Tensor;
  scales: DumpScales;
  /** Which of q_scale / k_scale / v_scale the file carries. */
  scalesPresent: { q: boolean; k: boolean; v: boolean };
}

const Q_DTYPE_OF: Record<string, QDtype> = { BF16: 'bf16', F8_E4M3: 'fp8_e4m3' };
const OUT_DTYPE_OF: Record<string, OutDtype> = { BF16: 'bf16', F16: 'fp16', F32: 'fp32' };
const INDEX_DTYPES: DType[] = ['I32', 'I64', 'U32'];

function fail(label: string, message: string, hint?: string): never {
  throw new UserError(`${label}: ${message}`, {
    code: DUMP_ERROR,
    hint: hint ?? 'the dump layout is described in docs/kernel-dumps.md',
  });
}

const shapeStr = (s: readonly number[]) => `[${s.join(', ')}]`;

function need(label: string, tensors: Map<string, Tensor>, name: string): Tensor {
  const t = tensors.get(name);
  if (!t) fail(label, `no tensor "${name}" (a dump needs query, kv_cache, block_tables, seq_lens)`);
  return t;
}

function indexValues(label: string, name: string, t: Tensor): number[] {
  if (!INDEX_DTYPES.includes(t.dtype)) fail(label, `${name} must be I32 (or I64/U32), got ${t.dtype}`);
  const out: number[] = [];
  const data = t.data as ArrayLike<number | bigint>;
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    const n = Number(x);
    if (!Number.isSafeInteger(n)) fail(label, `${name} holds ${String(x)}, not an index`);
    out.push(n);
  }
  return out;
}

function scalar(label: string, tensors: Map<string, Tensor>, name: string): { value: number; present: boolean } {
  const t = tensors.get(name);
  if (!t) return { value: 1, present: false };
  if (t.data.length !== 1 || t.shape.length > 1) fail(label, `${name} must be a scalar ([] or [1]), got ${t.dtype} ${shapeStr(t.shape)}`);
  if (t.dtype !== 'F32' && t.dtype !== 'F64' && t.dtype !== 'BF16') fail(label, `${name} must be F32, got ${t.dtype}`);
  const value = toFloat32(t)[0];
  if (!(Number.isFinite(value) && value > 0)) fail(label, `${name} is ${value}; a scale must be finite and > 0`);
  return { value, present: true };
}

/** Checks tensors + metadata against each other; the single gate every dump passes. */
export function validateKernelDump(tensors: Map<string, Tensor>, metadata: Record<string, string>, label: string): KernelDump {
  const meta = parseDumpMeta(metadata, label);
  const query = need(label, tensors, 'query');
  const kvCache = need(label, tensors, 'kv_cache');
  const seqT = need(label, tensors, 'seq_lens');
  const btT = need(label, tensors, 'block_tables');

  if (query.shape.length !== 3) fail(label, `query must be [tokens, heads, head_dim], got ${shapeStr(query.shape)}`);
  const [tokens, numHeads, headDim] = query.shape;
  const qd = Q_DTYPE_OF[query.dtype];
  if (!qd) fail(label, `query must be BF16 or F8_E4M3, got ${query.dtype}`);
  if (qd !== meta.qDtype) fail(label, `metadata q_dtype is ${meta.qDtype} but query is ${query.dtype}`, 'the header lies about the query dtype; fix the metadata or the tensor');

  if (kvCache.shape.length !== 5 || kvCache.shape[1] !== 2)
    fail(label, `kv_cache must be [blocks, 2, …] of rank 5, got ${shapeStr(kvCache.shape)}`);
  const kvd = Q_DTYPE_OF[kvCache.dtype];
  if (!kvd) fail(label, `kv_cache must be BF16 or F8_E4M3, got ${kvCache.dtype}`);
  if (kvd !== meta.kvDtype) fail(label, `metadata kv_dtype is ${meta.kvDtype} but kv_cache is ${kvCache.dtype}`, 'the header lies about the KV dtype');
  const hnd = meta.kvLayout === 'HND';
  const numBlocks = kvCache.shape[0];
  const numKvHeads = hnd ? kvCache.shape[2] : kvCache.shape[3];
  const page = hnd ? kvCache.shape[3] : kvCache.shape[2];
  if (page !== meta.pageSize)
    fail(label, `kv_cache ${shapeStr(kvCache.shape)} has pages of ${page} tokens in layout ${meta.kvLayout}, metadata page_size says ${meta.pageSize}`, 'check page_size and kv_layout (HND = [blocks, 2, kv_heads, page, head_dim], NHD = [blocks, 2, page, kv_heads, head_dim])');
  if (kvCache.shape[4] !== headDim) fail(label, `kv_cache head_dim ${kvCache.shape[4]} ≠ query head_dim ${headDim}`);
  if (numKvHeads === 0 || numHeads === 0 || numHeads % numKvHeads !== 0)
    fail(label, `query heads ${numHeads} must be a positive multiple of kv heads ${numKvHeads}`);
  if (headDim === 0) fail(label, 'head_dim is 0');

  if (seqT.shape.length !== 1) fail(label, `seq_lens must be [batch], got ${shapeStr(seqT.shape)}`);
  const seqLens = indexValues(label, 'seq_lens', seqT);
  const batch = seqLens.length;
  if (batch === 0) fail(label, 'seq_lens is empty: the dump holds no request');
  if (tokens !== batch * meta.qLenPerReq)
    fail(label, `query has ${tokens} tokens but seq_lens has ${batch} requests × q_len_per_req ${meta.qLenPerReq} = ${batch * meta.qLenPerReq}`);

  if (btT.shape.length !== 2 || btT.shape[0] !== batch)
    fail(label, `block_tables must be [batch = ${batch}, max_pages], got ${shapeStr(btT.shape)}`);
  const maxPages = btT.shape[1];
  const flat = indexValues(label, 'block_tables', btT);
  const blockTables: number[][] = [];
  for (let b = 0; b < batch; b++) {
    const s = seqLens[b];
    if (s < meta.qLenPerReq) fail(label, `request ${b}: seq_len ${s} < q_len_per_req ${meta.qLenPerReq} (seq_len counts the query rows)`);
    const pages = Math.ceil(s / page);
    if (pages > maxPages) fail(label, `request ${b}: seq_len ${s} needs ${pages} pages, block_tables has ${maxPages} columns`);
    const row = flat.slice(b * maxPages, (b + 1) * maxPages);
    for (let i = 0; i < pages; i++)
      if (row[i] < 0 || row[i] >= numBlocks) fail(label, `block_tables[${b}][${i}] = ${row[i]} is outside kv_cache's ${numBlocks} blocks`);
    blockTables.push(row);
  }

  const output = tensors.get('output');
  if (output) {
    if (output.shape.length !== 3 || output.shape.some((d, i) => d !== query.shape[i]))
      fail(label, `output ${shapeStr(output.shape)} must have the query's shape ${shapeStr(query.shape)}`);
    const od = OUT_DTYPE_OF[output.dtype];
    if (!od) fail(label, `output must be BF16, F16 or F32, got ${output.dtype}`);
    if (od !== meta.outDtype) fail(label, `metadata out_dtype is ${meta.outDtype} but output is ${output.dtype}`, 'the header lies about the output dtype');
  }

  const q = scalar(label, tensors, 'q_scale'), k = scalar(label, tensors, 'k_scale'), v = scalar(label, tensors, 'v_scale');
  checkInputsFinite(label, query, kvCache, meta, blockTables, seqLens, { numKvHeads, headDim });
  return {
    label,
    meta,
    geometry: { batch, tokens, numHeads, numKvHeads, headDim, numBlocks, maxPages },
    query,
    kvCache,
    blockTables,
    seqLens,
    output,
    scales: { q: q.value, k: k.value, v: v.value },
    scalesPresent: { q: q.present, k: k.present, v: v.present },
  };
}

/** Inputs must be finite where the reference reads them (unused pages may hold anything, as on a GPU). */
function checkInputsFinite(
  label: string,
  query: Tensor,
  kv: Tensor,
  meta: DumpMeta,
  tables: number[][],
  seqLens: number[],
  g: { numKvHeads: number; headDim: number },
): void {
  const qv = toFloat32(query);
  for (let i = 0; i < qv.length; i++)
    if (!Number.isFinite(qv[i])) fail(label, `query holds a non-finite value at flat index ${i} (token ${Math.floor(i / (query.shape[1] * query.shape[2]))})`, 'attention inputs must be finite; a NaN in the output is what verify reports, a NaN in the input is a broken dump');
  const kvv = toFloat32(kv);
  const blockElems = 2 * g.numKvHeads * meta.pageSize * g.headDim;
  if (meta.extra.poison !== NAN_POISON) {
    const used = new Set<number>();
    tables.forEach((row, b) => {
      for (let i = 0; i < Math.ceil(seqLens[b] / meta.pageSize); i++) used.add(row[i]);
    });
    for (const block of used)
      for (let i = block * blockElems; i < (block + 1) * blockElems; i++)
        if (!Number.isFinite(kvv[i])) fail(label, `kv_cache block ${block} holds a non-finite value (flat index ${i})`, `pages the block tables reference must be finite (unless the metadata declares poison=${NAN_POISON})`);
    return;
  }
  // a poisoned dump: every slot some row reads must be finite; the rest may hold NaN on purpose
  const P = meta.pageSize, H = g.numKvHeads, hd = g.headDim;
  const at = meta.kvLayout === 'HND' ? (blk: number, pl: number, h: number, off: number) => (((blk * 2 + pl) * H + h) * P + off) * hd : (blk: number, pl: number, h: number, off: number) => (((blk * 2 + pl) * P + off) * H + h) * hd;
  tables.forEach((row, b) => {
    const first = meta.windowLeft < 0 ? 0 : Math.max(0, seqLens[b] - meta.qLenPerReq - meta.windowLeft);
    for (let pos = first; pos < seqLens[b]; pos++)
      for (let pl = 0; pl < 2; pl++)
        for (let h = 0; h < H; h++) {
          const o = at(row[(pos / P) | 0], pl, h, pos % P);
          for (let i = o; i < o + hd; i++)
            if (!Number.isFinite(kvv[i])) fail(label, `request ${b}: the ${pl ? 'value' : 'key'} at position ${pos} (head ${h}) is non-finite, but a row reads it`, 'a poisoned dump may hold NaN only in slots outside every window');
        }
  });
}

/** Reads and validates one dump file. */
export function readKernelDump(path: string): KernelDump {
  const f = openSafetensors(path);
  try {
    const tensors = new Map<string, Tensor>();
    for (const name of f.names) tensors.set(name, f.read(name));
    return validateKernelDump(tensors, f.metadata, path);
  } finally {
    f.close();
  }
}

/** Parses and validates a dump held in memory (tests, hostile-input fuzzing). */
export function parseKernelDump(bytes: Uint8Array, label = '<memory>'): KernelDump {
  const { tensors, metadata } = parseSafetensors(bytes, label);
  return validateKernelDump(tensors, metadata, label);
}

/** The tensors + metadata of a dump, ready to write. */
export function dumpContents(d: Omit<KernelDump, 'label' | 'geometry'>): { tensors: Map<string, Tensor>; metadata: Record<string, string> } {
  const tensors = new Map<string, Tensor>();
  const [batch, maxPages] = [d.blockTables.length, d.blockTables[0]?.length ?? 0];
  tensors.set('query', d.query);
  tensors.set('kv_cache', d.kvCache);
  tensors.set('block_tables', { dtype: 'I32', shape: [batch, maxPages], data: Int32Array.from(d.blockTables.flat()) });
  tensors.set('seq_lens', { dtype: 'I32', shape: [batch], data: Int32Array.from(d.seqLens) });
  if (d.output) tensors.set('output', d.output);
  for (const k of ['q', 'k', 'v'] as const)
    if (d.scalesPresent[k]) tensors.set(`${k}_scale`, { dtype: 'F32', shape: [], data: Float32Array.of(d.scales[k]) });
  return { tensors, metadata: formatDumpMeta(d.meta) };
}

export function writeKernelDump(path: string, d: Omit<KernelDump, 'label' | 'geometry'>): void {
  const { tensors, metadata } = dumpContents(d);
  writeSafetensors(path, tensors, metadata);
}

export function serializeKernelDump(d: Omit<KernelDump, 'label' | 'geometry'>): Uint8Array {
  const { tensors, metadata } = dumpContents(d);
  return serializeSafetensors(tensors, metadata);
}
