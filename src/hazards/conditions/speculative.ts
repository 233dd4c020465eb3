/**
 * Speculative decoding as vLLM configures it (research/vllm-flashinfer.md §3, attention-numerics.md §3.3):
 * `--speculative-config {method, model, num_speculative_tokens, …}` (JSON, dotted keys or YAML),
 * or the legacy `--speculative-model` / `--num-speculative-tokens` flags of vLLM ≤ 0.8.
 * A verify step carries q_len_per_req = 1 + k query tokens per request (k = num_speculative_tokens).
 * Every `*_mtp` method name is a deprecated alias of `mtp`; suffix decoding defaults k to its
 * max_tree_depth (24) when num_speculative_tokens is unset.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asInt, asString, show } from './args.js';
import { perDeployment } from '../../deployment/per-deployment.js';

export interface SpecDecoding {
  /** Normalized method: mtp, eagle, eagle3, ngram, suffix, dflash, draft_model, …, or undefined when vLLM infers it. */
  method?: string;
  /** num_speculative_tokens, when known. */
  k?: number;
  /** How k was found, or why it is unknown. */
  kHow: string;
  /** How the launch spells it, for messages. */
  spelled: string;
  parallelDrafting: boolean;
  at?: SourceLocation;
}

function normalizeMethod(m: string | undefined): string | undefined {
  if (!m) return undefined;
  const s = m.toLowerCase();
  return s.endsWith('_mtp') ? 'mtp' : s;
}

function objectValue(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export const resolveSpeculative = perDeployment(function speculativeOf(d: Deployment): SpecDecoding | undefined {
  const sc = arg(d, 'speculative_config');
  const cfg = objectValue(sc?.value);
  if (sc && cfg) {
    const method = normalizeMethod(asString(cfg.method));
    const k = asInt(cfg.num_speculative_tokens);
    const parallelDrafting = asBool(cfg.parallel_drafting) === true;
    const spelled = `--speculative-config ${JSON.stringify(cfg)}`;
    if (k !== undefined)
      return { method, k, kHow: `num_speculative_tokens=${k}`, spelled, parallelDrafting, at: sc.at };
    if (method === 'suffix') {
      const depth = asInt(cfg.suffix_decoding_max_tree_depth) ?? 24;
      return {
        method,
        k: depth,
        kHow: `suffix decoding without num_speculative_tokens uses max_tree_depth (${depth}) as k`,
        spelled,
        parallelDrafting,
        at: sc.at,
      };
    }
    return {
      method,
      kHow: 'num_speculative_tokens is not set; vLLM then takes it from the drafter’s n_predict, which a launch file does not show',
      spelled,
      parallelDrafting,
      at: sc.at,
    };
  }
  const legacy = arg(d, 'speculative_model');
  if (legacy && asString(legacy.value)) {
    const kArg = arg(d, 'num_speculative_tokens');
    const k = asInt(kArg?.value);
    const spelled = `--speculative-model ${show(legacy.value)} (legacy flag, vLLM ≤ 0.8)`;
    return {
      method: 'draft_model',
      k,
      kHow: k !== undefined ? `--num-speculative-tokens ${k}` : '--num-speculative-tokens is not set',
      spelled,
      parallelDrafting: false,
      at: kArg?.at ?? legacy.at,
    };
  }
  return undefined;
});

/**
 * Speculative decoding is on, and (optionally) a verify step has more than `maxCleanQueryLen`
 * query tokens per request, i.e. k + 1 > maxCleanQueryLen. `methods` restricts which drafters count.
 */
export function speculativeDecoding(opts: {
  maxCleanQueryLen?: number;
  methods?: string[];
  /** Appended to the detail when met: what the record says about this q_len. */
  note?: (qLen: number) => string;
}): Condition {
  const limit = opts.maxCleanQueryLen;
  const methodText = opts.methods ? ` with ${opts.methods.join(' or ')}` : ' (any method)';
  return {
    name: 'speculative-decoding',
    description:
      limit === undefined
        ? `speculative decoding is on${methodText}`
        : `speculative decoding is on${methodText} with q_len_per_req = num_speculative_tokens + 1 > ${limit}`,
    check(d): ConditionResult {
      const s = resolveSpeculative(d);
      if (!s) return { status: 'not-met', detail: 'no speculative decoding configured' };
      if (opts.methods) {
        if (!s.method)
          return {
            status: 'unknown',
            detail: `${s.spelled} names no method; vLLM infers it from the draft model, which the launch does not show`,
            at: s.at,
          };
        if (!opts.methods.includes(s.method))
          return {
            status: 'not-met',
            detail: `speculative method ${s.method} is not among those reported`,
            at: s.at,
          };
      }
      const methodNote = s.method ? `method ${s.method}, ` : '';
      if (limit === undefined) return { status: 'met', detail: `${methodNote}${s.kHow}`, at: s.at };
      if (s.k === undefined) return { status: 'unknown', detail: `${methodNote}${s.kHow}`, at: s.at };
      const qLen = s.k + 1;
      const pd = s.parallelDrafting ? '; parallel_drafting is on (verify threshold 1 + 2k)' : '';
      if (qLen <= limit)
        return {
          status: 'not-met',
          detail: `${methodNote}${s.kHow}: q_len_per_req = ${qLen} ≤ ${limit}${pd}`,
          at: s.at,
        };
      const note = opts.note ? ` (${opts.note(qLen)})` : '';
      return {
        status: 'met',
        detail: `${methodNote}${s.kHow}: q_len_per_req = ${qLen} > ${limit}${note}${pd}`,
        at: s.at,
      };
    },
  };
}
