/**
 * Which CUDA-graph backend an SGLang launch prefills with. Two layouts of the same choice:
 *  - up to 0.5.13, booleans: --enable-breakable-cuda-graph, --enable-piecewise-cuda-graph (opt-in
 *    up to 0.5.6, on by default later) and --disable-piecewise-cuda-graph;
 *  - from 0.5.14 on, one field, cuda_graph_backend_prefill (full, breakable, tc_piecewise,
 *    disabled), set by --cuda-graph-backend-prefill, by the old booleans as deprecated aliases that
 *    store a constant into it, or by --cuda-graph-config's prefill.backend (which wins). Left unset,
 *    SGLang picks per release and platform (tc_piecewise at 0.5.14, breakable on CUDA at 0.5.18)
 *    and turns it off for launches it finds incompatible, so the launch alone does not say.
 * A release's flag table says which layout it has.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Deployment } from '../../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../../hazard.js';
import { said, sglArg } from './args.js';

export type PrefillBackend = 'full' | 'breakable' | 'tc_piecewise' | 'disabled';

export type PrefillCudaGraph =
  | { layout: 'backend'; backend: PrefillBackend | undefined; detail: string; at?: SourceLocation }
  | { layout: 'booleans' };

/** Whether the launch's release has the one-field layout (ServerArgs has cuda_graph_backend_prefill). */
function hasBackendField(d: Deployment): boolean {
  return d.sglang !== undefined && 'cuda_graph_backend_prefill' in d.sglang.defaults;
}

const UNREADABLE = Symbol('unreadable');

/** prefill.backend of --cuda-graph-config (JSON text: SGLang's parser for it is a function of its own). */
function prefillOfConfig(value: unknown): unknown {
  let config = value;
  if (typeof value === 'string')
    try {
      config = JSON.parse(value);
    } catch {
      return UNREADABLE;
    }
  return (config as { prefill?: { backend?: unknown } } | null)?.prefill?.backend;
}

export function prefillCudaGraph(d: Deployment): PrefillCudaGraph {
  if (!hasBackendField(d)) return { layout: 'booleans' };
  const config = sglArg(d, 'cuda_graph_config');
  const fromConfig = prefillOfConfig(config.value);
  if (fromConfig === UNREADABLE)
    return { layout: 'backend', backend: undefined, detail: `--cuda-graph-config ${String(config.value)} is not JSON faultline can read (a value set at run time?), and it decides the prefill backend`, at: config.at };
  if (typeof fromConfig === 'string')
    return { layout: 'backend', backend: fromConfig as PrefillBackend, detail: `--cuda-graph-config prefill.backend ${fromConfig}`, at: config.at };
  const set = sglArg(d, 'cuda_graph_backend_prefill');
  if (typeof set.value === 'string')
    return { layout: 'backend', backend: set.value as PrefillBackend, detail: `the prefill CUDA-graph backend ${set.value}`, at: set.at };
  for (const off of ['disable_cuda_graph', 'disable_prefill_cuda_graph']) {
    const v = sglArg(d, off);
    if (v.value === true) return { layout: 'backend', backend: 'disabled', detail: `--${off.replace(/_/g, '-')}`, at: v.at };
  }
  return {
    layout: 'backend',
    backend: undefined,
    detail:
      'no prefill CUDA-graph backend is given: SGLang picks one itself in this release (tc_piecewise or breakable, by release and platform) and turns it off for launches it finds incompatible; --cuda-graph-backend-prefill settles it',
  };
}

/** The condition's answer from the one-field layout: met when the prefill backend is `want`. */
function backendIs(g: Extract<PrefillCudaGraph, { layout: 'backend' }>, want: PrefillBackend): ConditionResult {
  if (g.backend === undefined) return { status: 'unknown', detail: g.detail, ...(g.at ? { at: g.at } : {}) };
  return { status: g.backend === want ? 'met' : 'not-met', detail: g.detail, ...(g.at ? { at: g.at } : {}) };
}

/** Prefill through torch.compile-split (piecewise) CUDA graphs. */
export function piecewiseCudaGraph(): Condition {
  return {
    name: 'piecewise-cuda-graph',
    description:
      'piecewise CUDA graphs are on (--enable-piecewise-cuda-graph, the default in releases after 0.5.6 unless SGLang turns them off; from 0.5.14 the prefill backend tc_piecewise)',
    check(d: Deployment): ConditionResult {
      const g = prefillCudaGraph(d);
      if (g.layout === 'backend') return backendIs(g, 'tc_piecewise');
      const off = sglArg(d, 'disable_piecewise_cuda_graph');
      if (off.value === true)
        return { status: 'not-met', detail: said('disable_piecewise_cuda_graph', off), at: off.at };
      const on = sglArg(d, 'enable_piecewise_cuda_graph');
      const optOut = d.sglang !== undefined && 'disable_piecewise_cuda_graph' in d.sglang.defaults;
      if (on.value === true && !optOut)
        return { status: 'met', detail: said('enable_piecewise_cuda_graph', on), at: on.at };
      if (optOut)
        return {
          status: 'unknown',
          detail:
            'piecewise CUDA graphs are on by default in this SGLang release, but SGLang turns them off for many models and launches; --disable-piecewise-cuda-graph settles it',
          at: on.at ?? d.at,
        };
      return {
        status: 'not-met',
        detail:
          'piecewise CUDA graphs are opt-in in this release and --enable-piecewise-cuda-graph is not given',
        at: d.at,
      };
    },
  };
}

/** Prefill through breakable CUDA graphs. */
export function breakableCudaGraph(): Condition {
  return {
    name: 'breakable-cuda-graph',
    description:
      'breakable CUDA graphs are on (--enable-breakable-cuda-graph; from 0.5.14 the prefill backend breakable)',
    check(d: Deployment): ConditionResult {
      const g = prefillCudaGraph(d);
      if (g.layout === 'backend') return backendIs(g, 'breakable');
      const on = sglArg(d, 'enable_breakable_cuda_graph');
      return on.value === true
        ? { status: 'met', detail: said('enable_breakable_cuda_graph', on), ...(on.at ? { at: on.at } : {}) }
        : { status: 'not-met', detail: '--enable-breakable-cuda-graph is not set', at: d.at };
    },
  };
}
