/**
 * The sub-keys of vLLM's JSON-valued config flags and the types vLLM validates them as, for
 * `--speculative-config`, `--attention-config` and `--compilation-config` (with its nested
 * `pass_config` and `dynamic_shapes_config`). Read from vllm-project/vllm @ v0.23.0
 * (0fc695fc6d1d82e9a5ac6835ac8e4e1c83703665):
 *
 *   vllm/config/speculative.py   SpeculativeConfig: fields, Field(gt/ge) bounds, the Literal method
 *                                names, `_verify_args` and `_validate_suffix_decoding`
 *   vllm/config/attention.py     AttentionConfig: fields; backend / mla_prefill_backend parsed by
 *                                enum NAME (upper-cased) in before-validators
 *   vllm/config/compilation.py   CompilationConfig, PassConfig, DynamicShapesConfig; `mode` by
 *                                CompilationMode name or value, `cudagraph_mode` by CUDAGraphMode name
 *   vllm/config/kernel.py        the MoEBackend names
 *   vllm/config/utils.py         `@config`: pydantic dataclasses with extra="forbid", so an unknown
 *                                sub-key stops vLLM at start-up
 *
 * Each class is a pydantic dataclass validated in lax mode (vllm/engine/arg_utils.py: the
 * attention and compilation flags through `TypeAdapter(cls).validate_json`, the speculative one
 * through `SpeculativeConfig(**dict)` when the engine config is built).
 */
import { ATTENTION_BACKENDS } from './vllm-flags.js';

export type FieldType =
  | { kind: 'bool' }
  | { kind: 'int'; gt?: number; ge?: number }
  | { kind: 'float' }
  | { kind: 'str' }
  /** Exact values (pydantic Literal). */
  | { kind: 'literal'; values: readonly (string | number)[] }
  /** An Enum parsed from its NAME, case-insensitively (vLLM's before-validators); `values` are what a non-string may be. */
  | { kind: 'enum-name'; names: readonly string[]; values?: readonly number[] }
  | { kind: 'list'; item: FieldType }
  | { kind: 'dict' }
  | { kind: 'object'; fields: ConfigFields }
  | { kind: 'one-of'; types: readonly FieldType[] }
  /** Not validated by vLLM (SkipValidation) or by faultline (a nested loader config). */
  | { kind: 'any' };

export interface FieldSpec {
  type: FieldType;
  /** `X | None`: null is accepted. */
  nullable?: boolean;
}

export type ConfigFields = Readonly<Record<string, FieldSpec>>;

const bool: FieldSpec = { type: { kind: 'bool' } };
const optBool: FieldSpec = { type: { kind: 'bool' }, nullable: true };
const int: FieldSpec = { type: { kind: 'int' } };
const optInt: FieldSpec = { type: { kind: 'int' }, nullable: true };
const float: FieldSpec = { type: { kind: 'float' } };
const str: FieldSpec = { type: { kind: 'str' } };
const optStr: FieldSpec = { type: { kind: 'str' }, nullable: true };
const any: FieldSpec = { type: { kind: 'any' }, nullable: true };
const listOf = (item: FieldType, nullable = false): FieldSpec => ({ type: { kind: 'list', item }, nullable });

const BACKEND_NAMES = ATTENTION_BACKENDS.filter((b) => b !== 'AUTO');
/** "auto" is mapped to None by the before-validator. */
const attentionBackend: FieldSpec = { type: { kind: 'enum-name', names: [...BACKEND_NAMES, 'AUTO'] }, nullable: true };

const MTP_METHODS = [
  'deepseek_mtp', 'mimo_mtp', 'mimo_v2_mtp', 'glm4_moe_mtp', 'glm4_moe_lite_mtp', 'glm_ocr_mtp', 'ernie_mtp',
  'nemotron_h_mtp', 'exaone_moe_mtp', 'exaone4_5_mtp', 'qwen3_next_mtp', 'qwen3_5_mtp', 'longcat_flash_mtp',
  'mtp', 'pangu_ultra_moe_mtp', 'step3p5_mtp', 'hy_v3_mtp', 'gemma4_mtp',
] as const;

/** SpeculativeMethod: ngram … custom_class, EagleModelTypes (eagle, eagle3, extract_hidden_states, MTP types, dflash), ngram_gpu. */
export const SPECULATIVE_METHODS: readonly string[] = [
  'ngram', 'medusa', 'mlp_speculator', 'draft_model', 'suffix', 'custom_class',
  'eagle', 'eagle3', 'extract_hidden_states', ...MTP_METHODS, 'dflash', 'ngram_gpu',
  // not in v0.23.0: added by vllm-project/vllm PR #46995 (vLLM 0.25.0 runs it, vllm#49369); listed so a
  // DSpark launch of a newer vLLM is not refused while this table stands for every version
  'dspark',
];

const MOE_BACKENDS = [
  'auto', 'triton', 'deep_gemm', 'deep_gemm_mega_moe', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass',
  'flashinfer_cutedsl', 'flashinfer_b12x', 'marlin', 'humming', 'triton_unfused', 'aiter', 'emulation',
] as const;

export const SPECULATIVE_FIELDS: ConfigFields = {
  enforce_eager: optBool,
  num_speculative_tokens: { type: { kind: 'int', gt: 0 } },
  model: optStr,
  method: { type: { kind: 'literal', values: SPECULATIVE_METHODS }, nullable: true },
  draft_tensor_parallel_size: { type: { kind: 'int', ge: 1 }, nullable: true },
  tensor_parallel_size: optInt,
  quantization: optStr,
  moe_backend: { type: { kind: 'literal', values: MOE_BACKENDS }, nullable: true },
  attention_backend: attentionBackend,
  max_model_len: { type: { kind: 'int', ge: 1 }, nullable: true },
  revision: optStr,
  code_revision: optStr,
  disable_padded_drafter_batch: bool,
  use_local_argmax_reduction: bool,
  prompt_lookup_max: { type: { kind: 'int', ge: 1 }, nullable: true },
  prompt_lookup_min: { type: { kind: 'int', ge: 1 }, nullable: true },
  parallel_drafting: bool,
  target_model_config: any,
  target_parallel_config: any,
  draft_model_config: any,
  draft_parallel_config: any,
  suffix_decoding_max_tree_depth: int,
  suffix_decoding_max_cached_requests: int,
  suffix_decoding_max_spec_factor: float,
  suffix_decoding_min_token_prob: float,
  draft_load_config: any,
  rejection_sample_method: { type: { kind: 'literal', values: ['standard', 'synthetic'] } },
  synthetic_acceptance_rates: listOf({ kind: 'float' }, true),
  synthetic_acceptance_length: { type: { kind: 'float' }, nullable: true },
  draft_sample_method: { type: { kind: 'literal', values: ['greedy', 'probabilistic'] } },
};

export const ATTENTION_FIELDS: ConfigFields = {
  // checked (and upper-cased, older releases' names noted) by checkAttentionBackend in vllm-arg-checks.ts
  backend: any,
  flash_attn_version: { type: { kind: 'literal', values: [2, 3, 4] }, nullable: true },
  use_prefill_decode_attention: bool,
  flash_attn_max_num_splits_for_cuda_graph: int,
  tq_max_kv_splits_for_cuda_graph: int,
  use_trtllm_attention: optBool,
  disable_flashinfer_q_quantization: bool,
  mla_prefill_backend: { type: { kind: 'enum-name', names: ['FLASH_ATTN', 'FLASHINFER', 'TRTLLM_RAGGED', 'TOKENSPEED_MLA', 'CUSTOM'] }, nullable: true },
  use_prefill_query_quantization: bool,
  use_fp4_indexer_cache: bool,
  use_non_causal: bool,
  flex_attn_block_m: optInt,
  flex_attn_block_n: optInt,
  flex_attn_q_block_size: optInt,
  flex_attn_kv_block_size: optInt,
};

/** PassConfig's fusion switches may be null: their validation is skipped until defaults are applied. */
const PASS_FIELDS: ConfigFields = {
  fuse_norm_quant: optBool,
  fuse_act_quant: optBool,
  fuse_attn_quant: optBool,
  eliminate_noops: bool,
  enable_sp: optBool,
  fuse_gemm_comms: optBool,
  fuse_allreduce_rms: optBool,
  fuse_minimax_qk_norm: optBool,
  enable_qk_norm_rope_fusion: optBool,
  fuse_rope_kvcache_cat_mla: optBool,
  fuse_act_padding: optBool,
  fuse_mla_dual_rms_norm: optBool,
  fuse_rope_kvcache: optBool,
  rope_kvcache_fusion_max_token_num: int,
  fi_allreduce_fusion_max_size_mb: { type: { kind: 'float' }, nullable: true },
  sp_min_token_num: optInt,
};

const DYNAMIC_SHAPES_FIELDS: ConfigFields = {
  type: { type: { kind: 'literal', values: ['backed', 'unbacked', 'backed_size_oblivious'] } },
  evaluate_guards: bool,
  assume_32_bit_indexing: bool,
};

export const COMPILATION_FIELDS: ConfigFields = {
  mode: { type: { kind: 'enum-name', names: ['NONE', 'STOCK_TORCH_COMPILE', 'DYNAMO_TRACE_ONCE', 'VLLM_COMPILE'], values: [0, 1, 2, 3] }, nullable: true },
  debug_dump_path: optStr,
  cache_dir: str,
  compile_cache_save_format: { type: { kind: 'literal', values: ['binary', 'unpacked'] } },
  backend: str,
  custom_ops: listOf({ kind: 'str' }),
  ir_enable_torch_wrap: optBool,
  splitting_ops: listOf({ kind: 'str' }, true),
  compile_mm_encoder: bool,
  cudagraph_mm_encoder: bool,
  encoder_cudagraph_token_budgets: listOf({ kind: 'int' }),
  encoder_cudagraph_max_vision_items_per_batch: int,
  encoder_cudagraph_max_frames_per_batch: optInt,
  compile_sizes: listOf({ kind: 'one-of', types: [{ kind: 'int' }, { kind: 'str' }] }, true),
  compile_ranges_endpoints: listOf({ kind: 'int' }, true),
  inductor_compile_config: { type: { kind: 'dict' } },
  inductor_passes: { type: { kind: 'dict' } },
  cudagraph_mode: { type: { kind: 'enum-name', names: ['NONE', 'PIECEWISE', 'FULL', 'FULL_DECODE_ONLY', 'FULL_AND_PIECEWISE'], values: [0, 1, 2] }, nullable: true },
  cudagraph_num_of_warmups: int,
  cudagraph_capture_sizes: listOf({ kind: 'int' }, true),
  cudagraph_copy_inputs: bool,
  cudagraph_specialize_lora: bool,
  use_inductor_graph_partition: optBool,
  pass_config: { type: { kind: 'object', fields: PASS_FIELDS } },
  max_cudagraph_capture_size: optInt,
  dynamic_shapes_config: { type: { kind: 'object', fields: DYNAMIC_SHAPES_FIELDS } },
  fast_moe_cold_start: optBool,
};

/** argparse dest of the JSON flag → its fields. */
export const CONFIG_FLAG_FIELDS: Readonly<Record<string, ConfigFields>> = {
  speculative_config: SPECULATIVE_FIELDS,
  attention_config: ATTENTION_FIELDS,
  compilation_config: COMPILATION_FIELDS,
};

/** The vLLM release these tables were read from. */
export const CONFIG_FIELDS_VERSION = '0.23.0';

/**
 * Sub-keys older releases had and vLLM 0.23 no longer has: with the launch's version unknown such a
 * key is not unknown (an older release takes it). `level`: CompilationConfig's optimization level,
 * the form `-O3` / `--compilation-config 3` wrote before `mode` replaced it.
 */
export const OLDER_RELEASE_KEYS: Readonly<Record<string, readonly string[]>> = {
  compilation_config: ['level'],
};
