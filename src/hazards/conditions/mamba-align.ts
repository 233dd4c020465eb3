/**
 * Hybrid models keep the recurrent state in `mamba_cache_mode` "align" when prefix caching is on
 * and the model does not support Mamba prefix caching in "all" mode: vLLM sets "all" if the model
 * supports it, else "align" (vllm/model_executor/models/config.py in v0.26.0 and v0.27.1, quoted in
 * vllm PR #50021). Qwen3.5-family models log that they get "align"; for other hybrids which one
 * they get is not in the record, so it is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asString, show } from './args.js';

const ALIGN_BY_DEFAULT = ['qwen3_5', 'qwen3_6'];

export function mambaAlignMode(): Condition {
  return {
    name: 'mamba-cache-mode-align',
    description:
      'the recurrent state runs in mamba_cache_mode "align" (set explicitly, or by prefix caching on a hybrid model without "all"-mode support, e.g. Qwen3.5)',
    check(d: Deployment): ConditionResult {
      const mode = arg(d, 'mamba_cache_mode');
      const m = asString(mode?.value)?.toLowerCase();
      if (m === 'align') return { status: 'met', detail: '--mamba-cache-mode align', at: mode?.at };
      if (m) return { status: 'not-met', detail: `--mamba-cache-mode ${m}: not align`, at: mode?.at };
      const pc = arg(d, 'enable_prefix_caching');
      const on = pc ? asBool(pc.value) : undefined;
      if (pc && on === undefined)
        return {
          status: 'unknown',
          detail: `--enable-prefix-caching ${show(pc.value)} is not a boolean`,
          at: pc.at,
        };
      if (on === false)
        return {
          status: 'not-met',
          detail: '--no-enable-prefix-caching: mamba_cache_mode stays "none"',
          at: pc?.at,
        };
      const type = d.modelFacts?.modelType ?? '';
      const spelled = pc ? '--enable-prefix-caching' : 'prefix caching is on by default';
      if (ALIGN_BY_DEFAULT.some((p) => type.startsWith(p)))
        return {
          status: pc ? 'met' : 'unknown',
          detail: pc
            ? `${spelled}: vLLM sets mamba_cache_mode "align" for ${type} (it does not support "all")`
            : `prefix caching is not set: on by default, which gives ${type} mamba_cache_mode "align", but whether a given release enables it for hybrid models is not established (set --enable-prefix-caching or --no-enable-prefix-caching)`,
          at: pc?.at ?? d.model?.at,
        };
      return {
        status: 'unknown',
        detail: `${spelled}; whether vLLM picks "align" or "all" depends on whether the model supports Mamba prefix caching, which is not in faultline's model facts (set --mamba-cache-mode)`,
        at: pc?.at,
      };
    },
  };
}
