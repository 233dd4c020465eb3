/**
 * What SGLang actually runs: ServerArgs.__post_init__ rewrites the parsed arguments before the
 * engine starts, silently or with a log line nobody reads, and hazards must see the result. In
 * SGLang's own order (main @ 65d3b47f; the same steps in the 0.5.x releases read):
 *   1. the attention backend: a --prefill- and --decode-attention-backend that agree become the
 *      backend; none given → chosen per GPU and model (default-attention-backend.ts);
 *      fa3 with an fp8_e5m2 KV cache → triton; torch_native / flex_attention disable CUDA graphs;
 *   2. the page size a backend forces: flashmla 64, cutlass_mla 128, trtllm_mla / cutedsl_mla 64
 *      unless 32 or 64, trtllm_mha 64 unless 16, 32 or 64, fa4 prefill of a non-MLA model on SM10x
 *      128; unset → 1;
 *   3. speculative decoding: the algorithm upper-cased, NEXTN → EAGLE (one implementation);
 *      EAGLE / EAGLE3 / STANDALONE: max_running_requests 48 when unset, mixed chunked prefill off,
 *      (steps, top-k, draft tokens) chosen when --speculative-num-steps is unset (Llama and Grok:
 *      5, 4, 8; others and STANDALONE: 3, 1, 4), draft tokens = steps + 1 at top-k 1;
 *      NGRAM: 12 draft tokens when unset, top-k = --speculative-ngram-max-bfs-breadth.
 * Each rewrite is recorded with the flag that caused it; a value SGLang derives from a fact the
 * launch does not show (the GPU, the model) is recorded as unknown, never guessed.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Deployment } from '../../deployment.js';
import type { ArgValue } from '../../vllm-parse-types.js';
import {
  architectureOf,
  defaultAttentionBackend,
  generationOf,
  isMlaModel,
} from './default-attention-backend.js';

export interface SglangRewrite {
  field: string;
  /** The value as written (undefined: not written). */
  from?: unknown;
  to: unknown;
  why: string;
  at?: SourceLocation;
}

export interface SglangLaunchFacts {
  /** The flag table the launch was read with. */
  table: { sglangVersion: string | null; commit: string; repository: string };
  /** Fields as the command line wrote them, before SGLang's rewrites. */
  written: Map<string, ArgValue>;
  rewrites: SglangRewrite[];
  /** Fields SGLang derives from facts the launch does not show → why they are unknown. */
  unknown: Map<string, string>;
  /** ServerArgs field defaults of the table's release (literals only). */
  defaults: Record<string, unknown>;
}

class Resolver {
  readonly rewrites: SglangRewrite[] = [];
  readonly unknown = new Map<string, string>();
  constructor(
    readonly args: Map<string, ArgValue>,
    readonly defaults: Record<string, unknown>,
    readonly origin: SourceLocation | undefined,
  ) {}

  get(field: string): unknown {
    return this.args.has(field) ? this.args.get(field)?.value : this.defaults[field];
  }

  given(field: string): boolean {
    const v = this.args.get(field)?.value;
    return v !== undefined && v !== null;
  }

  at(...fields: string[]): SourceLocation | undefined {
    for (const f of fields) {
      const a = this.args.get(f)?.at;
      if (a) return a;
    }
    return this.origin;
  }

  set(field: string, to: unknown, why: string, at: SourceLocation | undefined): void {
    const from = this.args.get(field)?.value;
    if (from === to) return;
    this.rewrites.push({ field, ...(from !== undefined ? { from } : {}), to, why, ...(at ? { at } : {}) });
    this.args.set(field, at ? { value: to, at } : { value: to });
  }
}

export interface ResolveInputs {
  written: Map<string, ArgValue>;
  defaults: Record<string, unknown>;
  sm?: number;
  /** The launch runs on AMD GPUs (ROCm / HIP build), as the launch shows (deployment/platform.ts). */
  hip?: boolean;
  modelFacts?: Deployment['modelFacts'];
  version?: string;
  /** Where the launch starts: rewrites that no flag caused point here. */
  origin?: SourceLocation;
}

export function resolveEffectiveLaunch(x: ResolveInputs): {
  args: Map<string, ArgValue>;
  rewrites: SglangRewrite[];
  unknown: Map<string, string>;
} {
  const r = new Resolver(new Map(x.written), x.defaults, x.origin);
  attentionBackend(r, x);
  pageSize(r, x);
  speculative(r, x);
  return { args: r.args, rewrites: r.rewrites, unknown: r.unknown };
}

function attentionBackend(r: Resolver, x: ResolveInputs): void {
  const prefill = r.get('prefill_attention_backend');
  if (prefill != null && prefill === r.get('decode_attention_backend'))
    r.set(
      'attention_backend',
      prefill,
      'the prefill and decode backends agree, so SGLang makes it the backend',
      r.at('prefill_attention_backend'),
    );
  if (!r.given('attention_backend')) {
    const algo = r.get('speculative_algorithm');
    const topk = r.get('speculative_eagle_topk');
    const page = r.get('page_size');
    const choice = defaultAttentionBackend(generationOf(x.version), {
      ...(x.sm !== undefined ? { sm: x.sm } : {}),
      ...(x.hip ? { hip: true } : {}),
      ...(x.modelFacts ? { modelFacts: x.modelFacts } : {}),
      speculative: algo != null,
      ...(typeof topk === 'number' ? { eagleTopk: topk } : {}),
      ...(typeof page === 'number' ? { pageSize: page } : {}),
    });
    if ('unknown' in choice)
      r.unknown.set('attention_backend', `no --attention-backend given: ${choice.unknown}`);
    else
      r.set(
        'attention_backend',
        choice.backend,
        `no --attention-backend given: SGLang chooses ${choice.backend} (${choice.why})`,
        r.origin,
      );
  }
  const backend = r.get('attention_backend');
  if (backend === 'fa3' && r.get('kv_cache_dtype') === 'fp8_e5m2')
    r.set(
      'attention_backend',
      'triton',
      'FA3 takes only fp8_e4m3, so SGLang falls back to triton for an fp8_e5m2 KV cache',
      r.at('kv_cache_dtype'),
    );
  if (backend === 'torch_native' || backend === 'flex_attention')
    r.set(
      'disable_cuda_graph',
      true,
      `CUDA graphs are disabled with the ${String(backend)} backend`,
      r.at('attention_backend'),
    );
}

/** Backends as SGLang applies them to a phase: the phase's own flag, else the backend. */
function uses(r: Resolver, name: string, phases: ('prefill' | 'decode')[] = ['prefill', 'decode']): boolean {
  const main = r.get('attention_backend');
  return phases.some((p) => (r.get(`${p}_attention_backend`) ?? main) === name);
}

function pageSize(r: Resolver, x: ResolveInputs): void {
  const forced: [string, number[], number, ('prefill' | 'decode')[]][] = [
    ['flashmla', [64], 64, ['decode']],
    ['cutlass_mla', [128], 128, ['decode']],
    ['trtllm_mla', [32, 64], 64, ['decode']],
    ['cutedsl_mla', [32, 64], 64, ['decode']],
    ['trtllm_mha', [16, 32, 64], 64, ['prefill', 'decode']],
  ];
  for (const [backend, allowed, to, phases] of forced) {
    const page = r.get('page_size');
    if (uses(r, backend, phases) && !allowed.includes(page as number))
      r.set(
        'page_size',
        to,
        `${backend} supports page sizes ${allowed.join(', ')} only: SGLang sets ${to}`,
        r.at('page_size', 'attention_backend', `${phases[0]}_attention_backend`),
      );
  }
  if (
    r.get('prefill_attention_backend') === 'fa4' &&
    x.sm !== undefined &&
    Math.floor(x.sm / 10) === 10 &&
    x.modelFacts &&
    !isMlaModel(x.modelFacts)
  )
    r.set(
      'page_size',
      128,
      'FA4 prefill of a non-MLA model on SM10x takes page size 128 only',
      r.at('prefill_attention_backend'),
    );
  if (r.get('page_size') == null) r.set('page_size', 1, 'no --page-size given: SGLang uses 1', undefined);
}

function autoSpecParams(r: Resolver, x: ResolveInputs, algo: string): [number, number, number] | undefined {
  if (algo === 'STANDALONE') return [3, 1, 4];
  if (!x.modelFacts) return undefined;
  const arch = architectureOf(x.modelFacts) ?? '';
  if (arch === 'LlamaForCausalLM' || arch === 'Grok1ForCausalLM' || arch === 'Grok1VForCausalLM')
    return [5, 4, 8];
  if (!arch && (x.modelFacts.modelType === 'llama' || x.modelFacts.modelType === 'grok-1')) return [5, 4, 8];
  return [3, 1, 4];
}

function speculative(r: Resolver, x: ResolveInputs): void {
  const written = r.get('speculative_algorithm');
  if (typeof written !== 'string') return;
  const at = r.at('speculative_algorithm');
  const upper = written.toUpperCase();
  if (upper !== written) r.set('speculative_algorithm', upper, 'SGLang upper-cases the algorithm name', at);
  if (upper === 'NEXTN')
    r.set(
      'speculative_algorithm',
      'EAGLE',
      'NEXTN is an alias: SGLang runs it as EAGLE (one implementation)',
      at,
    );
  const algo = String(r.get('speculative_algorithm'));
  if (algo === 'EAGLE' || algo === 'EAGLE3' || algo === 'STANDALONE') {
    if (r.get('max_running_requests') == null)
      r.set(
        'max_running_requests',
        48,
        'speculative decoding: SGLang caps running requests at 48 unless --max-running-requests is given',
        at,
      );
    if (r.get('enable_mixed_chunk') === true)
      r.set(
        'enable_mixed_chunk',
        false,
        'SGLang turns mixed chunked prefill off with EAGLE-style speculative decoding',
        r.at('enable_mixed_chunk'),
      );
    if (r.get('speculative_num_steps') == null) {
      const auto = autoSpecParams(r, x, algo);
      if (!auto) {
        for (const f of ['speculative_num_steps', 'speculative_eagle_topk', 'speculative_num_draft_tokens'])
          r.unknown.set(
            f,
            'SGLang chooses it from the model architecture, and no model config was given (--model-config)',
          );
        return;
      }
      const why = `no --speculative-num-steps given: SGLang chooses steps ${auto[0]}, top-k ${auto[1]}, ${auto[2]} draft tokens for this model`;
      r.set('speculative_num_steps', auto[0], why, at);
      r.set('speculative_eagle_topk', auto[1], why, at);
      r.set('speculative_num_draft_tokens', auto[2], why, at);
    }
    const steps = r.get('speculative_num_steps');
    if (
      r.get('speculative_eagle_topk') === 1 &&
      typeof steps === 'number' &&
      r.get('speculative_num_draft_tokens') !== steps + 1
    )
      r.set(
        'speculative_num_draft_tokens',
        steps + 1,
        'at top-k 1 SGLang sets draft tokens to steps + 1',
        r.at('speculative_num_draft_tokens', 'speculative_num_steps'),
      );
  } else if (algo === 'NGRAM') {
    if (r.get('speculative_num_draft_tokens') == null)
      r.set(
        'speculative_num_draft_tokens',
        12,
        'NGRAM: SGLang uses 12 draft tokens unless --speculative-num-draft-tokens is given',
        at,
      );
    const breadth = r.get('speculative_ngram_max_bfs_breadth');
    if (breadth != null)
      r.set('speculative_eagle_topk', breadth, 'NGRAM: top-k is --speculative-ngram-max-bfs-breadth', at);
  }
}
