/**
 * Model-side conditions, from the checkpoint facts (deployment/model-config.ts).
 * `--disable-sliding-window` turns every layer into full attention *and* caps max_model_len to the
 * window (research/configs-and-cli.md §1.4), so a window-crossing defect cannot trigger — at the price
 * of the model's long context.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asInt, show } from './args.js';
import { noModelFacts } from './no-model-facts.js';

export function slidingWindowLayers(): Condition {
  return {
    name: 'sliding-window-layers',
    role: 'fact',
    description: 'the model has sliding-window attention layers (and --disable-sliding-window is not set)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      const dsw = arg(d, 'disable_sliding_window');
      if (dsw && asBool(dsw.value) === true) {
        const cap = f?.window ? ` (${f.window} tokens)` : '';
        return {
          status: 'not-met',
          detail: `--disable-sliding-window makes every layer full attention and caps max_model_len to the window${cap}: no sliding layer is left, but neither is the long context`,
          at: dsw.at,
        };
      }
      if (!f) return noModelFacts(d, 'the layer types');
      const sliding = f.layers.filter((k) => k === 'sliding').length;
      if (sliding > 0)
        return {
          status: 'met',
          detail: `${sliding} of ${f.layers.length} layers use sliding-window attention, window ${f.window ?? '?'} tokens (${f.source})`,
          at: d.model?.at,
        };
      const chunked = f.layers.filter((k) => k === 'chunked').length;
      const why = chunked > 0 ? `; its ${chunked} chunked-attention layers are not a sliding window` : '';
      return {
        status: 'not-met',
        detail: `none of the ${f.layers.length} layers uses sliding-window attention (${f.source})${why}`,
        at: d.model?.at,
      };
    },
  };
}

/** Sequences can grow past the sliding window: --max-model-len is larger than the window (or unset). */
export function contextExceedsWindow(): Condition {
  return {
    name: 'context-exceeds-window',
    description:
      'sequences can grow past the sliding window (--max-model-len is unset or larger than the window)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      const given = arg(d, 'max_model_len');
      // `--max-model-len auto` means "as large as fits", i.e. the model's own length: treat as unset.
      const mml = given && show(given.value).toLowerCase() === 'auto' ? undefined : given;
      const len = asInt(mml?.value);
      if (!f || f.window === undefined) {
        if (len !== undefined)
          return { status: 'unknown', detail: `--max-model-len ${len}; the window is unknown`, at: mml?.at };
        return {
          status: 'unknown',
          detail: 'the sliding window is unknown (no model config)',
          at: d.model?.at,
        };
      }
      if (mml && len === undefined)
        return {
          status: 'unknown',
          detail: `--max-model-len ${show(mml.value)} is not a token count`,
          at: mml.at,
        };
      if (len === undefined)
        return {
          status: 'met',
          detail: `--max-model-len is unset: the model's own context length applies, beyond the ${f.window}-token window`,
          at: d.model?.at,
        };
      return len > f.window
        ? { status: 'met', detail: `--max-model-len ${len} > window ${f.window}`, at: mml?.at }
        : {
            status: 'not-met',
            detail: `--max-model-len ${len} ≤ window ${f.window}: no sequence ever leaves the window`,
            at: mml?.at,
          };
    },
  };
}

/** The model's attention has sinks (gpt-oss). */
export function attentionSinks(): Condition {
  return {
    name: 'attention-sinks',
    role: 'fact',
    description: 'the model uses attention sinks (gpt-oss)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'whether it has attention sinks');
      return f.modelType?.startsWith('gpt_oss')
        ? {
            status: 'met',
            detail: `model_type ${f.modelType} has attention sinks (${f.source})`,
            at: d.model?.at,
          }
        : {
            status: 'not-met',
            detail: `model_type ${f.modelType ?? 'unknown'} has no attention sinks`,
            at: d.model?.at,
          };
    },
  };
}

/** Sequences can grow past `tokens` (--max-model-len unset, i.e. the model's own length, or larger). */
export function contextCanExceed(tokens: number): Condition {
  return {
    name: 'long-context',
    description: `sequences can grow past ${tokens} tokens (--max-model-len unset or larger)`,
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'max_model_len');
      if (!a || show(a.value).toLowerCase() === 'auto')
        return { status: 'met', detail: `--max-model-len is unset: the model's own context length applies` };
      const n = asInt(a.value);
      if (n === undefined)
        return {
          status: 'unknown',
          detail: `--max-model-len ${show(a.value)} is not a token count`,
          at: a.at,
        };
      return n > tokens
        ? { status: 'met', detail: `--max-model-len ${n} > ${tokens}`, at: a.at }
        : { status: 'not-met', detail: `--max-model-len ${n} ≤ ${tokens}`, at: a.at };
    },
  };
}
