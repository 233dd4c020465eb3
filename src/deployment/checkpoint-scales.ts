/**
 * Attention q/k/v scales stored in a safetensors checkpoint, as vLLM would end up using them
 * (research/vllm-flashinfer.md §4): only tensor headers are read, plus the bytes of small scalar
 * float scale tensors.
 *
 * Names: `…layers.{i}.self_attn.{q,k,v}_scale` (compressed-tensors, faultline's tiny model),
 * `…layers.{i}.self_attn.{k,v}_proj.{k,v}_scale` (ModelOpt exports), legacy `…kv_scale`; vision
 * or audio towers are ignored. Effective values follow vLLM's BaseKVCacheMethod: a missing k/v
 * pair is 1.0; a single `kv_scale` serves as both k and v; a missing q_scale is 1.0.
 * Per-channel (non-scalar) scales are reported as present without values: vLLM rejects them for an
 * FP8 KV cache ("Only support per-tensor scaling factor").
 */
import { UserError } from '../core/errors.js';
import { openCheckpoint } from '../tensors/safetensors-index.js';
import { toFloat32 } from '../tensors/tensor.js';
import type { ModelFacts } from './deployment.js';

const SCALE_NAME = /(?:^|\.)layers\.(\d+)\.(?:[A-Za-z0-9_]+\.)*(q|k|v|kv)_scale$/;
const NOT_DECODER = /(?:^|\.)(vision|visual|audio|vision_tower|audio_tower|mm_projector)[._]/;
const FLOAT_DTYPES = new Set(['F32', 'BF16', 'F16', 'F64']);

export type CheckpointScales = NonNullable<ModelFacts['scales']>;

/** undefined when the directory holds no safetensors checkpoint (scales then stay unknown). */
export function checkpointScales(
  dir: string,
  numLayers: number,
  notes: string[],
): CheckpointScales | undefined {
  let ckpt;
  try {
    ckpt = openCheckpoint(dir);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    if (/holds neither/.test(e.message)) return undefined;
    // A checkpoint faultline cannot read (e.g. a dtype it does not know) leaves the scales unknown, said so.
    notes.push(`the safetensors checkpoint could not be read (${e.message}): attention scales are unknown`);
    return undefined;
  }
  try {
    const found = {
      q: new Map<number, number | null>(),
      k: new Map<number, number | null>(),
      v: new Map<number, number | null>(),
      kv: new Map<number, number | null>(),
    };
    let beyond = 0;
    let perChannel = 0;
    for (const name of ckpt.names) {
      const m = SCALE_NAME.exec(name);
      if (!m || NOT_DECODER.test(name) || !/attn/.test(name)) continue;
      const layer = Number(m[1]);
      const kind = m[2] as keyof typeof found;
      if (layer >= numLayers) {
        beyond++;
        continue;
      }
      const { dtype, shape } = ckpt.info(name);
      const numel = shape.reduce((a, b) => a * b, 1);
      let value: number | null = null;
      if (numel === 1 && FLOAT_DTYPES.has(dtype)) value = toFloat32(ckpt.read(name))[0];
      else perChannel++;
      found[kind].set(layer, value);
    }
    if (beyond)
      notes.push(
        `${beyond} scale tensor(s) belong to layers beyond the ${numLayers} decoder layers (e.g. an MTP head) and are not counted`,
      );
    if (perChannel)
      notes.push(
        `${perChannel} attention scale tensor(s) are not per-tensor scalars: vLLM rejects those for an FP8 KV cache`,
      );
    if (found.kv.size)
      notes.push('the checkpoint has legacy kv_scale tensors: vLLM uses each as both k_scale and v_scale');
    const present = {
      q: found.q.size > 0,
      k: found.k.size + found.kv.size > 0,
      v: found.v.size + found.kv.size > 0,
    };
    const values = (kind: 'q' | 'k' | 'v'): number[] | undefined => {
      const map = found[kind];
      if (!present[kind]) return undefined;
      const out: number[] = [];
      for (let i = 0; i < numLayers; i++) {
        const v = map.has(i) ? map.get(i) : found.kv.get(i);
        if (v === null) return undefined; // a non-scalar scale somewhere: no honest per-layer list
        out.push(v === undefined || v <= 0 ? 1.0 : v);
      }
      return out;
    };
    const q = values('q');
    const k = values('k');
    const v = values('v');
    const missing = (['q', 'k', 'v'] as const).filter(
      (x) => present[x] && found[x].size + (x === 'q' ? 0 : found.kv.size) < numLayers,
    );
    if (missing.length)
      notes.push(`${missing.join('/')} scales are missing for some layers; vLLM uses 1.0 there`);
    return { present, ...(q ? { q } : {}), ...(k ? { k } : {}), ...(v ? { v } : {}) };
  } finally {
    ckpt.close();
  }
}
