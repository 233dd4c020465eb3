/**
 * The features `faultline plan` turns into matrix factors, each read from a resolved launch: the
 * level the launch uses and its safe level (the reference), the flags that express each level,
 * and the hazard conditions that mention it. A feature becomes a factor only when the launch
 * uses it at a level other than the safe one (an FP8 KV cache, speculative decoding, a kernel
 * flag set) — a launch already at the safe level has nothing there to blame.
 *
 * The list is the interaction-prone set of the research note (combinatorial-testing.md §5.2: the
 * attention backend, KV dtype, speculative decoding, kernel flags, CUDA graphs, prefix caching,
 * chunked prefill, page size, parallelism) and every launch flag a hazard condition checks
 * (`hazards` below names the condition ids; the plan cites the hazards whose conditions they are).
 */
import type { Deployment } from '../deployment/deployment.js';

export type Target = 'vllm' | 'engine';

/** What one level adds to the launch: argv words and JSON-flag keys (merged by the matrix). */
export interface FeatureLevel {
  name: string;
  argv?: string[];
  json?: Record<string, Record<string, unknown>>;
}

export interface FeatureFactor {
  factor: string;
  description: string;
  /** Why the feature is a suspect, for the plan's comment. */
  why: string;
  /** Hazard condition ids that mention it. */
  conditions: string[];
  role?: 'choice';
  /** The safe (reference) level first, the launch's level last; sometimes one between. */
  levels: FeatureLevel[];
  /** argparse dests the levels express: dropped from the base command. */
  owns: string[];
  /** JSON sub-keys the levels express: dropped from the base command's value of that flag. */
  ownsKeys?: { dest: string; keys: string[] };
}

const arg = (d: Deployment, dest: string): unknown => d.args.get(dest)?.value;
const asObject = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const truthy = (v: unknown): boolean => v === true || v === 'true' || v === 'True' || v === 1 || v === '1';

type Rule = (d: Deployment, target: Target) => FeatureFactor | undefined;

const kvCache: Rule = (d) => {
  const given = arg(d, 'kv_cache_dtype');
  const spelled = given === undefined ? 'auto' : String(given);
  const fromCheckpoint = d.modelFacts?.kvDtypeFromCheckpoint;
  const effective = spelled === 'auto' ? fromCheckpoint : spelled;
  if (!effective || !/^fp8|nvfp4|turboquant/.test(effective)) return undefined;
  return {
    factor: 'kv_cache',
    description: `KV-cache dtype: the launch's ${spelled}${spelled === 'auto' ? ` (${effective}, declared by the checkpoint)` : ''} against bfloat16, asked for explicitly`,
    why: 'quantized KV caches change attention numerics and scale bookkeeping',
    conditions: ['fp8-kv-cache', 'turboquant-kv-cache', 'compressed-tensors-fp8-kv'],
    levels: [
      { name: 'bf16', argv: ['--kv-cache-dtype', 'bfloat16'] },
      { name: effective, argv: ['--kv-cache-dtype', spelled] },
    ],
    owns: ['kv_cache_dtype'],
  };
};

const attentionBackend: Rule = (d, target) => {
  const backend = arg(d, 'attention_backend') ?? asObject(arg(d, 'attention_config'))?.backend;
  if (typeof backend !== 'string' || backend === 'TRITON_ATTN' || backend === 'REFERENCE') return undefined;
  // the engine's exact attention; on vLLM, Triton attention runs on every GPU vLLM supports
  const safe = target === 'engine' ? 'REFERENCE' : 'TRITON_ATTN';
  return {
    factor: 'attention_backend',
    description: `attention backend: the launch's ${backend} against ${safe}`,
    why: 'backend-specific kernels and routing (spec-as-decode, scale handling)',
    conditions: ['flashinfer-backend', 'float-scale-backend'],
    levels: [
      { name: safe, argv: ['--attention-backend', safe] },
      { name: backend, argv: ['--attention-backend', backend] },
    ],
    owns: ['attention_backend'],
    ownsKeys: { dest: 'attention_config', keys: ['backend'] },
  };
};

const qQuantization: Rule = (d) => {
  if (!truthy(asObject(arg(d, 'attention_config'))?.disable_flashinfer_q_quantization)) return undefined;
  return {
    factor: 'q_quantization',
    description: "FlashInfer's FP8 query quantization: enabled (vLLM's default) against the launch's disabled (a BF16 query)",
    why: 'a BF16 query against an FP8 KV cache takes other kernels and other scale bookkeeping',
    conditions: ['q-quantization-disabled'],
    levels: [{ name: 'enabled' }, { name: 'disabled', json: { '--attention-config': { disable_flashinfer_q_quantization: true } } }],
    owns: [],
    ownsKeys: { dest: 'attention_config', keys: ['disable_flashinfer_q_quantization'] },
  };
};

const speculative: Rule = (d, target) => {
  const spec = asObject(arg(d, 'speculative_config'));
  if (!spec || typeof spec.method !== 'string') return undefined;
  const k = Number(spec.num_speculative_tokens ?? 1);
  // the engine drafts with the checkpoint's own head: no draft model
  const { model: _drafter, ...rest } = spec;
  const base = target === 'engine' ? rest : spec;
  const level = (n: number): FeatureLevel => ({ name: `${spec.method}-k${n}`, json: { '--speculative-config': { ...base, num_speculative_tokens: n } } });
  return {
    factor: 'speculative',
    description: `speculative decoding: off against the launch's ${spec.method} with ${k} draft tokens (q_len_per_req ${k + 1})${k > 1 ? ', and one draft token between' : ''}`,
    why: 'verification runs k+1 query rows per request through the decode path',
    conditions: ['speculative-decoding'],
    levels: [{ name: 'off' }, ...(k > 1 ? [level(1)] : []), level(k)],
    owns: ['speculative_config'],
  };
};

/** A feature vLLM V1 turns on by default: the launch's level unless it turned it off. */
const defaultOn =
  (o: { dest: string; factor: string; what: string; conditions: string[]; why: string }): Rule =>
  (d) => {
    if (arg(d, o.dest) === false) return undefined;
    const flag = `--${o.dest.replace(/_/g, '-')}`;
    return {
      factor: o.factor,
      description: `${o.what}: off against the launch's on (vLLM's default)`,
      why: o.why,
      conditions: o.conditions,
      levels: [{ name: 'off', argv: [flag.replace(/^--/, '--no-')] }, { name: 'on', argv: [flag] }],
      owns: [o.dest],
    };
  };

const blockSize: Rule = (d) => {
  const given = Number(arg(d, 'block_size') ?? 16);
  const other = given === 16 ? 32 : 16;
  return {
    factor: 'block_size',
    description: `KV page size: the launch's ${given} tokens and ${other}`,
    why: 'page alignment decides which rows a paged kernel mis-addresses',
    conditions: ['kv-page-over-128'],
    role: 'choice',
    levels: [
      { name: String(given), argv: ['--block-size', String(given)] },
      { name: String(other), argv: ['--block-size', String(other)] },
    ],
    owns: ['block_size'],
  };
};

const cudaGraphs: Rule = (d) => {
  if (truthy(arg(d, 'enforce_eager'))) return undefined;
  return {
    factor: 'cuda_graphs',
    description: "CUDA graphs: eager mode (--enforce-eager) against the launch's captured graphs",
    why: 'graph capture freezes buffers and wrappers that a later step may need fresh',
    conditions: ['full-cuda-graphs'],
    levels: [{ name: 'eager', argv: ['--enforce-eager'] }, { name: 'graphs' }],
    owns: ['enforce_eager'],
  };
};

const parallel =
  (dest: string, factor: string, conditions: string[]): Rule =>
  (d) => {
    const n = Number(arg(d, dest) ?? 1);
    if (!(n > 1)) return undefined;
    const flag = `--${dest.replace(/_/g, '-')}`;
    return {
      factor,
      description: `${flag}: 1 against the launch's ${n}`,
      why: 'collectives and their fused kernels run only with more than one rank',
      conditions,
      levels: [
        { name: '1', argv: [flag, '1'] },
        { name: String(n), argv: [flag, String(n)] },
      ],
      owns: [dest],
    };
  };

const asyncScheduling: Rule = (d) => {
  if (!truthy(arg(d, 'async_scheduling'))) return undefined;
  return {
    factor: 'async_scheduling',
    description: "asynchronous scheduling: off against the launch's on",
    why: 'the next step is scheduled before the last one’s tokens are known',
    conditions: ['async-scheduling'],
    levels: [{ name: 'off', argv: ['--no-async-scheduling'] }, { name: 'on', argv: ['--async-scheduling'] }],
    owns: ['async_scheduling'],
  };
};

/** In plan order: the suspects of the canonical case first. */
export const FEATURE_RULES: readonly Rule[] = [
  kvCache,
  speculative,
  qQuantization,
  attentionBackend,
  defaultOn({
    dest: 'enable_prefix_caching',
    factor: 'prefix_caching',
    what: 'prefix caching',
    conditions: ['prefill-with-context'],
    why: 'a prefill that reads cached context takes the context-merge path',
  }),
  defaultOn({
    dest: 'enable_chunked_prefill',
    factor: 'chunked_prefill',
    what: 'chunked prefill',
    conditions: ['prefill-with-context'],
    why: 'a prompt split over steps is attended in chunks against what earlier chunks cached',
  }),
  blockSize,
  cudaGraphs,
  parallel('tensor_parallel_size', 'tensor_parallel', ['tensor-parallel']),
  parallel('pipeline_parallel_size', 'pipeline_parallel', ['pipeline-parallel']),
  parallel('data_parallel_size', 'data_parallel', []),
  asyncScheduling,
];

export function launchFeatures(d: Deployment, target: Target): FeatureFactor[] {
  return FEATURE_RULES.flatMap((rule) => rule(d, target) ?? []);
}
