/**
 * Several suites in one probe (`--suite workload,window-crossing`, or a list in a matrix plan's
 * `probe.suite`): each runs on its own, and one verdict combines them. A server is CORRUPT when
 * any suite found it corrupt, CLEAN only when every suite said CLEAN, and INCONCLUSIVE otherwise:
 * a suite that could not decide leaves the state it probes unprobed, so it can never count as clean.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { EndpointVerdict } from '../oracle/stats.js';
import { SUITE_NAMES, type SuiteName } from './suites.js';

/** The stateful suite (probe/workload/), which needs a live reference. */
export const WORKLOAD_SUITE = 'workload';
export type AnySuite = SuiteName | typeof WORKLOAD_SUITE;
export const ALL_SUITES: readonly AnySuite[] = [...SUITE_NAMES, WORKLOAD_SUITE];

/**
 * "workload,window-crossing" (or a list) → the suites in the order written. Unknown names,
 * repeats, empty entries and two prompt suites at once (they share --requests and --prompts) are
 * refused.
 */
export function parseSuiteList(
  given: string | readonly string[],
  where: string,
  at?: SourceLocation,
): AnySuite[] {
  const names = (typeof given === 'string' ? given.split(',') : [...given]).map((s) => s.trim());
  const fail = (what: string): never => {
    throw new UserError(`${where}: ${what}`, {
      at,
      hint: `suites: ${ALL_SUITES.join(', ')}; combine the workload suite with one prompt suite, e.g. workload,window-crossing`,
    });
  };
  if (names.length === 0 || names.some((n) => n === ''))
    fail(`an empty suite name in ${JSON.stringify(given)}`);
  for (const n of names) if (!ALL_SUITES.includes(n as AnySuite)) fail(`unknown suite "${n}"`);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) fail(`suite "${repeated}" is named twice`);
  const prompts = names.filter((n) => n !== WORKLOAD_SUITE);
  if (prompts.length > 1)
    fail(
      `${prompts.join(' and ')} are both prompt suites; one probe runs one of them (run the other in a second probe)`,
    );
  return names as AnySuite[];
}

export interface SuiteVerdict {
  suite: AnySuite;
  verdict: EndpointVerdict;
  reason: string;
}

/** One verdict for the server from every suite's: CORRUPT if any is, CLEAN only if all are. */
export function combineVerdicts(parts: readonly SuiteVerdict[]): {
  verdict: EndpointVerdict;
  reason: string;
} {
  if (parts.length === 0) return { verdict: 'INCONCLUSIVE', reason: 'no suite ran' };
  const listed = parts.map((p) => `${p.suite} ${p.verdict}`).join(', ');
  const corrupt = parts.filter((p) => p.verdict === 'CORRUPT');
  if (corrupt.length)
    return {
      verdict: 'CORRUPT',
      reason: `${corrupt.map((p) => p.suite).join(' and ')} found corruption (${listed})`,
    };
  if (parts.every((p) => p.verdict === 'CLEAN'))
    return { verdict: 'CLEAN', reason: `every suite is clean (${listed})` };
  const open = parts.filter((p) => p.verdict !== 'CLEAN');
  return {
    verdict: 'INCONCLUSIVE',
    reason: `${open.map((p) => `${p.suite}: ${p.reason}`).join('; ')} (${listed})`,
  };
}
