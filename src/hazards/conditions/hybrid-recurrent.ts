/**
 * Hybrid models with a recurrent state (GDN / Mamba / short-conv layers beside attention layers,
 * Qwen3.5 / Qwen3-Next style) and how vLLM keeps that state between steps: `mamba_cache_mode`.
 * The public record (research/interaction-bugs.md B4–B6): "none" is the default for hybrid models
 * without prefix caching; prefix caching on forces "align". Whether prefix caching itself is on by
 * default for hybrid models is not established there, so an unset --enable-prefix-caching is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asString, show } from './args.js';
import { noModelFacts } from './no-model-facts.js';

export function hybridRecurrentModel(): Condition {
  return {
    name: 'hybrid-recurrent-model',
    role: 'fact',
    description:
      'the model is a hybrid of attention and recurrent-state layers (GDN / Mamba linear attention, e.g. Qwen3.5, Qwen3-Next)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'whether it has GDN/Mamba layers');
      const linear = f.layers.filter((k) => k === 'linear').length;
      const type = f.modelType ? `model_type ${f.modelType}, ` : '';
      if (linear === 0)
        return {
          status: 'not-met',
          detail: `${type}none of the ${f.layers.length} layers keeps a recurrent state (${f.source})`,
          at: d.model?.at,
        };
      if (linear === f.layers.length)
        return {
          status: 'unknown',
          detail: `${type}all ${linear} layers are recurrent (no attention layers): the reports cover hybrid models only`,
          at: d.model?.at,
        };
      return {
        status: 'met',
        detail: `${type}${linear} of ${f.layers.length} layers are GDN/Mamba-style recurrent layers beside attention layers (${f.source})`,
        at: d.model?.at,
      };
    },
  };
}

/**
 * vLLM keeps the recurrent state in `mamba_cache_mode="none"`: no post-sampling migration of the
 * state. An explicit mamba_cache_mode (a flag faultline's table does not list, so it only arrives
 * through --allow-unknown-flags) is read as given.
 */
export function mambaCacheModeNone(): Condition {
  return {
    name: 'mamba-cache-mode-none',
    description:
      'vLLM runs the recurrent state in mamba_cache_mode "none" (the default for hybrid models without prefix caching; prefix caching forces "align")',
    check(d: Deployment): ConditionResult {
      const mode = arg(d, 'mamba_cache_mode');
      if (mode) {
        const m = asString(mode.value)?.toLowerCase();
        if (m === 'none') return { status: 'met', detail: 'mamba_cache_mode none is set', at: mode.at };
        if (m === 'align')
          return {
            status: 'not-met',
            detail: 'mamba_cache_mode align is set: the reports cover "none" mode only',
            at: mode.at,
          };
        return {
          status: 'unknown',
          detail: `mamba_cache_mode ${show(mode.value)}: the reports cover "none" mode; this value is not in the record`,
          at: mode.at,
        };
      }
      const pc = arg(d, 'enable_prefix_caching');
      const on = asBool(pc?.value);
      if (on === true)
        return {
          status: 'not-met',
          detail:
            '--enable-prefix-caching forces mamba_cache_mode "align" for hybrid models; the reports cover "none" mode',
          at: pc?.at,
        };
      if (on === false)
        return {
          status: 'met',
          detail: '--no-enable-prefix-caching: hybrid models then run mamba_cache_mode "none" (the default)',
          at: pc?.at,
        };
      return {
        status: 'unknown',
        detail: pc
          ? `--enable-prefix-caching ${show(pc.value)} is not a boolean`
          : 'prefix caching is not set: whether it is on by default for hybrid models (which would force mamba_cache_mode "align") depends on the vLLM release; --no-enable-prefix-caching or --enable-prefix-caching settles it',
        at: pc?.at,
      };
    },
  };
}
