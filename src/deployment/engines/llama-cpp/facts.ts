/**
 * llama-server's parsed options → the named facts hazards reason about (serving-facts.ts). A fact
 * the launch does not set is the table's default, marked `from: 'default'`: the default of the
 * table's release, which older builds do not always share (context shift was on by default, and
 * flash attention off, in builds of 2024). When the command line holds an unquoted run-time expansion
 * (`$EXTRA_ARGS`), a default is only the default unless that expansion sets the option: the fact is
 * then known only at run time.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { ServingFact, ServingFacts } from '../../serving-facts.js';
import type { LlamaArg, LlamaArgvParse } from './argparse.js';
import { onOffValue } from './argparse.js';
import { optionIndex, optionKey, type LlamaCppFlagTable } from './flag-table.js';

type Key = keyof ServingFacts;

/** Fact → the option keys that set it, first wins (the model: -m before -hf before a URL). */
const SOURCES: Record<Key, string[]> = {
  model: ['model', 'hf_repo', 'model_url', 'docker_repo'],
  ctxSize: ['ctx_size'],
  parallel: ['parallel'],
  flashAttn: ['flash_attn'],
  cacheTypeK: ['cache_type_k'],
  cacheTypeV: ['cache_type_v'],
  swaFull: ['swa_full'],
  contextShift: ['context_shift'],
  draftModel: ['spec_draft_model', 'spec_draft_hf'],
  specType: ['spec_type'],
  // --draft / --draft-n / --draft-max: removed in the table's release, read as given (older builds took it)
  draftMax: ['spec_draft_n_max', 'draft'],
  cacheReuse: ['cache_reuse'],
  cachePrompt: ['cache_prompt'],
  nGpuLayers: ['gpu_layers'],
};

/** The option key whose default a fact takes when nothing sets it. */
const DEFAULT_OF: Partial<Record<Key, string>> = {
  ctxSize: 'ctx_size',
  parallel: 'parallel',
  flashAttn: 'flash_attn',
  cacheTypeK: 'cache_type_k',
  cacheTypeV: 'cache_type_v',
  swaFull: 'swa_full',
  contextShift: 'context_shift',
  specType: 'spec_type',
  draftMax: 'spec_draft_n_max',
  cacheReuse: 'cache_reuse',
  cachePrompt: 'cache_prompt',
  nGpuLayers: 'gpu_layers',
};

export function servingFacts(
  args: Map<string, LlamaArg>,
  table: LlamaCppFlagTable,
  origin?: SourceLocation,
  spreads: LlamaArgvParse['spreads'] = [],
): ServingFacts {
  const facts: ServingFacts = {};
  for (const [fact, keys] of Object.entries(SOURCES) as [Key, string[]][]) {
    const key = keys.find((k) => args.has(k));
    const arg = key !== undefined ? args.get(key) : undefined;
    if (arg) {
      (facts as Record<Key, ServingFact<unknown>>)[fact] = {
        value: normalize(fact, arg.value, Boolean(arg.runtime)),
        from: arg.from,
        option: arg.option,
        ...(arg.at ? { at: arg.at } : {}),
        ...(arg.runtime ? { runtime: arg.runtime } : {}),
        ...(arg.overridden ? { overridden: arg.overridden } : {}),
      };
      continue;
    }
    const d = defaultFact(fact, table, origin);
    if (d) (facts as Record<Key, ServingFact<unknown>>)[fact] = spreads.length > 0 ? maybeSetBy(spreads, d) : d;
  }
  return facts;
}

function normalize(fact: Key, value: unknown, runtime: boolean): unknown {
  if (runtime) return value;
  if (fact === 'flashAttn' && typeof value === 'string') return onOffValue(value) ?? value;
  if (fact === 'specType' && typeof value === 'string') return value.split(',').map((s) => s.trim());
  return value;
}

function defaultFact(
  fact: Key,
  table: LlamaCppFlagTable,
  origin: SourceLocation | undefined,
): ServingFact<unknown> | undefined {
  const key = DEFAULT_OF[fact];
  if (!key) return undefined;
  const o = [...optionIndex(table).byName.values()].map((h) => h.option).find((x) => optionKey(x) === key);
  if (!o || o.default === undefined) return undefined;
  const value = defaultValue(o.kind, o.default);
  if (value === undefined) return undefined;
  return {
    value: fact === 'specType' && typeof value === 'string' ? [value] : value,
    from: 'default',
    option: o.names[o.names.length - 1],
    ...(origin ? { at: origin } : {}),
  };
}

/** A default that an unquoted expansion on the command line may replace: known only at run time. */
function maybeSetBy(spreads: LlamaArgvParse['spreads'], d: ServingFact<unknown>): ServingFact<unknown> {
  const words = spreads.map((x) => x.text).join(', ');
  return {
    ...d,
    runtime: {
      text: String(d.value),
      why: `the default unless ${words} sets ${d.option ?? 'it'}`,
      names: [...new Set(spreads.flatMap((x) => x.names))],
    },
  };
}

/** The help text's default as a value: `0`, `auto`, `enabled` → true, `disabled` → false, `f16`. */
function defaultValue(kind: string, text: string): unknown {
  if (kind === 'switch')
    return /^(enabled|true)$/.test(text) ? true : /^(disabled|false)$/.test(text) ? false : undefined;
  if (kind === 'int' && /^-?\d+$/.test(text)) return Number(text);
  if (/^[\w.+-]+$/.test(text)) return text;
  return undefined;
}
