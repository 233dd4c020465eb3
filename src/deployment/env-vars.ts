/**
 * Environment variables that change vLLM's attention behaviour, and what they mean for a given
 * vLLM version (research/configs-and-cli.md §2.4, vllm-flashinfer.md §2.2):
 *
 * - Nine attention variables (VLLM_ATTENTION_BACKEND, VLLM_USE_TRTLLM_ATTENTION,
 *   VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION, …) were vLLM's only switch for these settings until
 *   PR #26315 (Oct 2025) added `--attention-config`; from then on vLLM still read them, with a
 *   deprecation warning, and they OVERRIDE the command line (AttentionConfig.__post_init__ sets the
 *   field from the variable). PR #32812 (merged 2026-01-21, "as v0.14.0 has been out") removed
 *   them: vLLM 0.15.0 (released before 2026-02-02) and later ignore them (v0.23.0 source: only an
 *   "Unknown vLLM environment variable" warning; issue #50292 confirms 0.26.0 ignores
 *   VLLM_ATTENTION_BACKEND). faultline treats them as honoured below 0.15.0 and ignored from 0.15.0
 *   on; with no version known, "unknown".
 * - Others still read: VLLM_BATCH_INVARIANT (turns TRTLLM attention off), VLLM_HAS_FLASHINFER_CUBIN
 *   (pre-downloaded cubins: TRTLLM attention usable offline), VLLM_KV_CACHE_LAYOUT,
 *   VLLM_ALLOW_LONG_MAX_MODEL_LEN; VLLM_USE_V1=0 selects the old V0 engine where it still exists.
 * Value parsing follows vllm/envs.py (`bool(int(x))`, `x.lower() in ("1", "true")`, `x == "1"`).
 */
import type { SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import { inRange } from './versions.js';

type Parsed = { value: unknown } | { error: string };

const boolInt = (raw: string): Parsed => {
  const n = /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  return Number.isNaN(n)
    ? { error: `vLLM reads it with int(): "${raw}" makes it fail at startup` }
    : { value: n !== 0 };
};
const trueIfOneOrTrue = (raw: string): Parsed => ({ value: ['1', 'true'].includes(raw.toLowerCase()) });
const equalsOne = (raw: string): Parsed => ({ value: raw === '1' });
const int = (raw: string): Parsed =>
  /^\s*[+-]?\d+\s*$/.test(raw) ? { value: Number(raw) } : { error: `"${raw}" is not an integer` };
const backendName = (raw: string): Parsed => ({
  value: raw
    .trim()
    .toUpperCase()
    .replace(/_VLLM_V1$/, ''),
});

/** The removed attention variables, each with the attention_config field it set. */
export const ATTENTION_ENV_VARS: readonly { name: string; field: string; parse: (raw: string) => Parsed }[] =
  [
    { name: 'VLLM_ATTENTION_BACKEND', field: 'backend', parse: backendName },
    { name: 'VLLM_FLASH_ATTN_VERSION', field: 'flash_attn_version', parse: int },
    {
      name: 'VLLM_V1_USE_PREFILL_DECODE_ATTENTION',
      field: 'use_prefill_decode_attention',
      parse: trueIfOneOrTrue,
    },
    {
      name: 'VLLM_FLASH_ATTN_MAX_NUM_SPLITS_FOR_CUDA_GRAPH',
      field: 'flash_attn_max_num_splits_for_cuda_graph',
      parse: int,
    },
    { name: 'VLLM_USE_CUDNN_PREFILL', field: 'use_cudnn_prefill', parse: boolInt },
    {
      name: 'VLLM_USE_TRTLLM_RAGGED_DEEPSEEK_PREFILL',
      field: 'use_trtllm_ragged_deepseek_prefill',
      parse: boolInt,
    },
    // unset → None (auto); "1"/"true" (any case) → True; anything else → False.
    { name: 'VLLM_USE_TRTLLM_ATTENTION', field: 'use_trtllm_attention', parse: trueIfOneOrTrue },
    { name: 'VLLM_DISABLE_FLASHINFER_PREFILL', field: 'disable_flashinfer_prefill', parse: equalsOne },
    {
      name: 'VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION',
      field: 'disable_flashinfer_q_quantization',
      parse: boolInt,
    },
  ];

/** The first vLLM release without the attention variables (see the header). */
export const ATTENTION_ENV_REMOVED_IN = '0.15.0';

export interface VllmEnvFacts {
  /** Whether this vLLM version reads the attention variables: 'unknown' when the version is not known. */
  attentionEnvHonoured: 'yes' | 'no' | 'unknown';
  /** attention_config fields the attention variables set (they override the command line where honoured). */
  attentionConfig: Map<string, Located<unknown>>;
  batchInvariant?: Located<boolean>;
  hasFlashinferCubin?: Located<boolean>;
  kvCacheLayout?: Located<string>;
  allowLongMaxModelLen?: Located<boolean>;
  /** false when VLLM_USE_V1=0 asks for the V0 engine. */
  useV1?: Located<boolean>;
  notes: Located<string>[];
}

export function readVllmEnv(env: ReadonlyMap<string, Located<string>>, vllmVersion?: string): VllmEnvFacts {
  const range = inRange(vllmVersion, `<${ATTENTION_ENV_REMOVED_IN}`);
  const honoured = range === 'unknown' ? 'unknown' : range ? 'yes' : 'no';
  const facts: VllmEnvFacts = { attentionEnvHonoured: honoured, attentionConfig: new Map(), notes: [] };
  const note = (value: string, at?: SourceLocation) => facts.notes.push(at ? { value, at } : { value });

  for (const spec of ATTENTION_ENV_VARS) {
    const raw = env.get(spec.name);
    if (!raw) continue;
    const parsed = spec.parse(raw.value);
    const when =
      honoured === 'yes'
        ? `vLLM ${vllmVersion} reads it and it overrides attention_config.${spec.field} from the command line`
        : honoured === 'no'
          ? `vLLM ${vllmVersion} ignores it (removed in ${ATTENTION_ENV_REMOVED_IN} by vllm-project/vllm PR #32812); use --attention-config.${spec.field}`
          : `it is ignored by vLLM ≥ ${ATTENTION_ENV_REMOVED_IN} (removed by PR #32812) and overrides attention_config.${spec.field} in older releases; give the vLLM version to know which`;
    if ('error' in parsed) {
      note(`${spec.name}=${raw.value}: ${honoured === 'no' ? when : parsed.error}`, raw.at);
      continue;
    }
    if (spec.name === 'VLLM_ATTENTION_BACKEND' && /_VLLM_V1$/i.test(raw.value.trim())) {
      note(`${spec.name}: the _VLLM_V1 suffix is stripped by vLLM (PR #25489)`, raw.at);
    }
    facts.attentionConfig.set(spec.field, { value: parsed.value, ...(raw.at ? { at: raw.at } : {}) });
    note(`${spec.name}=${raw.value}: ${when}`, raw.at);
  }

  const bool = (name: string, parse: (raw: string) => Parsed): Located<boolean> | undefined => {
    const raw = env.get(name);
    if (!raw) return undefined;
    const parsed = parse(raw.value);
    if ('error' in parsed) {
      note(`${name}=${raw.value}: ${parsed.error}`, raw.at);
      return undefined;
    }
    return { value: parsed.value as boolean, ...(raw.at ? { at: raw.at } : {}) };
  };
  const batchInvariant = bool('VLLM_BATCH_INVARIANT', boolInt);
  if (batchInvariant) facts.batchInvariant = batchInvariant;
  const cubin = bool('VLLM_HAS_FLASHINFER_CUBIN', boolInt);
  if (cubin) facts.hasFlashinferCubin = cubin;
  const longLen = bool('VLLM_ALLOW_LONG_MAX_MODEL_LEN', trueIfOneOrTrue);
  if (longLen) facts.allowLongMaxModelLen = longLen;
  const layout = env.get('VLLM_KV_CACHE_LAYOUT');
  if (layout) facts.kvCacheLayout = { value: layout.value, ...(layout.at ? { at: layout.at } : {}) };
  const v1 = env.get('VLLM_USE_V1');
  if (v1) {
    facts.useV1 = { value: v1.value !== '0', ...(v1.at ? { at: v1.at } : {}) };
    if (v1.value === '0')
      note(
        'VLLM_USE_V1=0 selects the V0 engine in the releases that still have it; later releases removed V0 and ignore the variable',
        v1.at,
      );
  }
  return facts;
}

/**
 * attention_config as vLLM builds it: the command-line object, with the attention variables
 * laid over it where this version reads them. `fromEnv` lists the fields the environment set;
 * with an unknown version the overlay is applied and `certain` is false.
 */
export function attentionConfigWithEnv(
  fromArgs: Record<string, unknown> | undefined,
  env: VllmEnvFacts,
): { value: Record<string, unknown>; fromEnv: string[]; certain: boolean } {
  const value: Record<string, unknown> = { ...(fromArgs ?? {}) };
  if (env.attentionEnvHonoured === 'no') return { value, fromEnv: [], certain: true };
  const fromEnv: string[] = [];
  for (const [field, v] of env.attentionConfig) {
    value[field] = v.value;
    fromEnv.push(field);
  }
  return { value, fromEnv, certain: env.attentionEnvHonoured === 'yes' || fromEnv.length === 0 };
}
