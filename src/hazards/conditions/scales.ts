/**
 * Checkpoint attention scales that FlashInfer's BF16-query paths mis-apply
 * (research/vllm-flashinfer.md §1.3, §4):
 * - q_scale ≠ 1 is folded into bmm1 on trtllm-gen decode (all versions) and passed to the native
 *   wrappers (from PR #43232, nightly 0.23.1rc1.dev843 on) although a BF16 query was never divided by it;
 * - k/v scales ≠ 1 are applied twice when prefill is forced onto trtllm-gen (use_trtllm_attention=true,
 *   kernel block size ≥ 128, or attention sinks): the cache is first dequantized, then scaled again.
 * vLLM uses 1.0 for a scale the checkpoint lacks, which makes both harmless. Without an inspected
 * checkpoint the scales are unknown — never assumed to be 1.0.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asInt, attentionSetting } from './args.js';
import { inFamily } from './gpu.js';

function notOne(values: number[] | undefined): number[] | undefined {
  if (!values) return undefined;
  return values.filter((x) => x !== 1);
}

function describe(kind: string, odd: number[], total: number): string {
  const sample = [...new Set(odd)]
    .slice(0, 3)
    .map((x) => x.toPrecision(4))
    .join(', ');
  return `${odd.length} of ${total} layers carry ${kind} ≠ 1 (e.g. ${sample})`;
}

/** Why prefill is forced onto trtllm-gen, or why that is unknown; both undefined when it is not forced. */
function forcedTrtllmPrefill(d: Deployment): { forced?: string; uncertain?: string } {
  const force = attentionSetting(d, 'use_trtllm_attention');
  if (asBool(force?.value) === true && !force?.uncertain)
    return { forced: `${force?.spelled} forces trtllm-gen prefill` };
  const block = asInt(arg(d, 'block_size')?.value);
  if (block !== undefined && block >= 128)
    return { forced: `--block-size ${block} (≥ 128) forces trtllm-gen prefill` };
  if (d.modelFacts?.modelType?.startsWith('gpt_oss'))
    return { forced: 'attention sinks (gpt-oss) force trtllm-gen prefill' };
  if (force?.uncertain) return { uncertain: force.uncertain };
  return {};
}

export function miscountedScales(): Condition {
  return {
    name: 'checkpoint-scales-not-one',
    description:
      'the checkpoint carries q_scale ≠ 1, or k/v scales ≠ 1 while prefill is forced onto trtllm-gen (use_trtllm_attention=true, block size ≥ 128, or sinks)',
    check(d: Deployment): ConditionResult {
      const s = d.modelFacts?.scales;
      if (!s)
        return {
          status: 'unknown',
          detail:
            'no checkpoint inspected, so its q/k/v scales are unknown (pass --model-config with the checkpoint directory to read the safetensors headers)',
          at: d.model?.at,
        };
      const total = d.modelFacts?.layers.length ?? 0;
      const oddQ = notOne(s.q);
      if (oddQ && oddQ.length > 0)
        return {
          status: 'met',
          detail: `${describe('q_scale', oddQ, s.q?.length ?? total)}: applied to a BF16 query that was never quantized`,
          at: d.model?.at,
        };
      if (s.present.q && !s.q)
        return {
          status: 'unknown',
          detail: 'the checkpoint has q_scale tensors whose values were not read',
          at: d.model?.at,
        };
      const oddKv = [...(notOne(s.k) ?? []), ...(notOne(s.v) ?? [])];
      const kvUnread = (s.present.k && !s.k) || (s.present.v && !s.v);
      if (oddKv.length === 0 && !kvUnread)
        return {
          status: 'not-met',
          detail:
            s.present.q || s.present.k || s.present.v
              ? 'every q/k/v scale is 1.0'
              : 'the checkpoint has no q/k/v scales: vLLM uses 1.0',
          at: d.model?.at,
        };
      const { forced, uncertain } = forcedTrtllmPrefill(d);
      const kvText = kvUnread
        ? 'k/v scale tensors whose values were not read'
        : describe('k/v scales', oddKv, 2 * total);
      if (uncertain)
        return {
          status: 'unknown',
          detail: `${kvText}; whether prefill is forced onto trtllm-gen: ${uncertain}`,
        };
      if (!forced)
        return {
          status: 'not-met',
          detail: `${kvText}, but prefill is not forced onto trtllm-gen, where they would be applied twice`,
          at: d.model?.at,
        };
      if (!d.gpu)
        return {
          status: 'unknown',
          detail: `${kvText}; ${forced} only on SM100-family GPUs, and the GPU is unknown`,
        };
      if (!inFamily(d.gpu.value.sm, 100))
        return {
          status: 'not-met',
          detail: `${kvText}; trtllm-gen prefill exists only on SM100-family GPUs`,
          at: d.gpu.at,
        };
      if (kvUnread) return { status: 'unknown', detail: `${kvText}; ${forced}`, at: d.model?.at };
      return { status: 'met', detail: `${kvText}; ${forced}, which applies them twice`, at: d.model?.at };
    },
  };
}
