/**
 * On/off serving features read from their flags, with vLLM's defaults: chunked prefill and prefix
 * caching are on unless turned off (CacheConfig.enable_prefix_caching defaults to True,
 * vllm/config/cache.py), cascade attention is on unless --disable-cascade-attn, LoRA is off unless
 * --enable-lora. A value that is not a boolean is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, show } from './args.js';

interface Feature {
  name: string;
  description: string;
  dest: string;
  /** The value vLLM uses when the flag is absent. */
  defaultOn: boolean;
  /** The flag means "off" when true (--disable-cascade-attn). */
  inverted?: boolean;
  /** What the default is, for the detail. */
  defaultWhy: string;
  /** When the default itself is not established for this case: the unset flag is unknown, and why. */
  unsetUnknown?: string;
}

function feature(f: Feature): Condition {
  const flag = `--${f.dest.replace(/_/g, '-')}`;
  return {
    name: f.name,
    description: f.description,
    check(d: Deployment): ConditionResult {
      const a = arg(d, f.dest);
      if (!a && f.unsetUnknown)
        return { status: 'unknown', detail: `${flag} is not given: ${f.unsetUnknown}` };
      if (!a)
        return f.defaultOn
          ? { status: 'met', detail: `${flag} is not given: ${f.defaultWhy}`, byDefault: true }
          : { status: 'not-met', detail: `${flag} is not given: ${f.defaultWhy}` };
      const v = asBool(a.value);
      if (v === undefined)
        return { status: 'unknown', detail: `${flag} ${show(a.value)} is not a boolean`, at: a.at };
      const on = f.inverted ? !v : v;
      const spelled = v ? flag : `--no-${flag.slice(2)}`;
      return { status: on ? 'met' : 'not-met', detail: `${spelled}: ${on ? 'on' : 'off'}`, at: a.at };
    },
  };
}

export const chunkedPrefill = (): Condition =>
  feature({
    name: 'chunked-prefill',
    description: 'chunked prefill is on (the default; --no-enable-chunked-prefill turns it off)',
    dest: 'enable_chunked_prefill',
    defaultOn: true,
    defaultWhy: 'vLLM V1 prefills long prompts in chunks by default',
  });

export const prefixCaching = (opts: { hybrid?: boolean } = {}): Condition =>
  feature({
    name: 'prefix-caching',
    description: 'prefix caching is on (the default; --no-enable-prefix-caching turns it off)',
    dest: 'enable_prefix_caching',
    defaultOn: true,
    defaultWhy: 'CacheConfig.enable_prefix_caching defaults to True',
    ...(opts.hybrid
      ? {
          unsetUnknown:
            'whether a given release turns it on by default for hybrid models is not established (set --enable-prefix-caching or --no-enable-prefix-caching)',
        }
      : {}),
  });

export const cascadeAttention = (): Condition =>
  feature({
    name: 'cascade-attention',
    description:
      'cascade attention may run (it is on unless --disable-cascade-attn; a heuristic uses it for long shared prefixes)',
    dest: 'disable_cascade_attn',
    defaultOn: true,
    inverted: true,
    defaultWhy: 'cascade attention is on, and vLLM uses it when many requests share a long prefix',
  });

export const loraEnabled = (): Condition =>
  feature({
    name: 'lora',
    description: 'LoRA adapters are served (--enable-lora)',
    dest: 'enable_lora',
    defaultOn: false,
    defaultWhy: 'LoRA is off unless enabled',
  });

/** The multimodal processor cache holds processed inputs (--mm-processor-cache-gb > 0; 0 turns it off). */
export function mmProcessorCache(): Condition {
  return {
    name: 'mm-processor-cache',
    description: 'the multimodal processor cache is on (--mm-processor-cache-gb > 0, the default)',
    check(d: Deployment): ConditionResult {
      const legacy = arg(d, 'disable_mm_preprocessor_cache');
      if (legacy && asBool(legacy.value) === true)
        return { status: 'not-met', detail: '--disable-mm-preprocessor-cache', at: legacy.at };
      const a = arg(d, 'mm_processor_cache_gb');
      if (!a)
        return {
          status: 'met',
          detail: '--mm-processor-cache-gb is not given: the cache is on by default',
          byDefault: true,
        };
      const gb = typeof a.value === 'number' ? a.value : Number(show(a.value));
      if (!Number.isFinite(gb))
        return {
          status: 'unknown',
          detail: `--mm-processor-cache-gb ${show(a.value)} is not a number`,
          at: a.at,
        };
      return gb > 0
        ? { status: 'met', detail: `--mm-processor-cache-gb ${gb}`, at: a.at }
        : { status: 'not-met', detail: '--mm-processor-cache-gb 0: no processor cache', at: a.at };
    },
  };
}
