/**
 * Hardware facts short of one known GPU, applied to every condition alike (evaluate.ts wraps each):
 * - GPU candidates (a SkyPilot task listing several accelerators): a condition that depends on the
 *   GPU is checked with each; not met for every one → not met, met for every one → met, otherwise
 *   unknown, naming which candidates would meet it.
 * - The platform: a launch that runs on AMD GPUs (ROCm) is checked with a stand-in AMD GPU, which is
 *   in no NVIDIA family; a condition that this rules out is not met ("runs on AMD GPUs"). Only a
 *   ruling-out is taken from the stand-in: it is not a GPU whose kernels anyone characterised.
 * With a GPU given (--gpu, nvidia-smi, a single label) neither applies.
 */
import type { Deployment, GpuFacts } from '../../deployment/deployment.js';
import type { Located } from '../../core/located.js';
import type { Condition, ConditionResult } from '../hazard.js';

export const AMD_GPU: GpuFacts = { name: 'an AMD GPU (ROCm)', sm: 0, vendor: 'amd' };

/** Each condition is wrapped once: lint evaluates every condition once per launch. */
const wrapped = new WeakMap<Condition, Condition>();

export function withHardwareCandidates(c: Condition): Condition {
  let w = wrapped.get(c);
  if (!w) wrapped.set(c, (w = wrap(c)));
  return w;
}

function wrap(c: Condition): Condition {
  return {
    ...c,
    check(d: Deployment): ConditionResult {
      const base = c.check(d);
      if (d.gpu || base.status === 'not-met') return base;
      if (d.platform?.value === 'rocm') return onRocm(c, d, base);
      if (d.gpuCandidates && d.gpuCandidates.length > 1) return overCandidates(c, d, d.gpuCandidates, base);
      return base;
    },
  };
}

function onRocm(c: Condition, d: Deployment, base: ConditionResult): ConditionResult {
  const platform = d.platform as NonNullable<Deployment['platform']>;
  const r = c.check({ ...d, gpu: { value: AMD_GPU, ...(platform.at ? { at: platform.at } : {}) } });
  if (r.status !== 'not-met') return base;
  return {
    status: 'not-met',
    detail: `the launch runs on AMD GPUs (${platform.evidence}): ${r.detail}`,
    ...(platform.at ? { at: platform.at } : {}),
  };
}

function overCandidates(
  c: Condition,
  d: Deployment,
  candidates: Located<GpuFacts>[],
  base: ConditionResult,
): ConditionResult {
  const results = candidates.map((g) => ({ g, r: c.check({ ...d, gpu: g }) }));
  const names = (list: typeof results) => list.map(({ g }) => g.value.name ?? `SM${g.value.sm}`).join(', ');
  const at = candidates[0].at ? { at: candidates[0].at } : {};
  if (results.every(({ r }) => r.status === 'not-met'))
    return {
      status: 'not-met',
      detail: `none of the GPUs the launch may run on (${names(results)}) meets it: ${results[0].r.detail}`,
      ...at,
    };
  if (results.every(({ r }) => r.status === 'met'))
    return {
      status: 'met',
      detail: `every GPU the launch may run on (${names(results)}) meets it: ${results[0].r.detail}`,
      ...at,
    };
  if (results.every(({ r }) => r.status === base.status)) return base;
  const meeting = results.filter(({ r }) => r.status !== 'not-met');
  const not = results.filter(({ r }) => r.status === 'not-met');
  return {
    status: 'unknown',
    detail: `the launch may run on ${names(results)}: possible on ${names(meeting)}${not.length ? `, not on ${names(not)}` : ''} (give --gpu to choose)`,
    ...at,
  };
}
