/**
 * Whether vLLM takes every flag of the launch as written, read from the argv emulation's flag
 * problems (deployment/vllm-argparse.ts): a flag its release's table does not have, or an
 * abbreviation that matches several flags. With a release version whose table faultline has,
 * such a flag makes vLLM refuse to start; otherwise faultline's table may simply not know it.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { FlagProblem } from '../../deployment/vllm-parse-types.js';
import type { Condition, ConditionResult } from '../hazard.js';

function describe(p: FlagProblem): string {
  if (p.kind === 'ambiguous') return `${p.option} is an ambiguous abbreviation (could match ${p.candidates?.join(', ')})`;
  const hint = p.suggestion ? `; did you mean ${p.suggestion}?` : '';
  const known = p.knownIn?.length ? ` (faultline's tables have it in vLLM ${span(p.knownIn)})` : '';
  return `${p.option}${known}${hint}`;
}

function span(releases: string[]): string {
  return releases.length === 1 ? releases[0] : `${releases[0]}–${releases[releases.length - 1]}`;
}

export function flagsNotAccepted(): Condition {
  return {
    name: 'flag-not-accepted',
    description: 'a flag of the launch is not one vLLM accepts as written',
    check(d: Deployment): ConditionResult {
      const problems = d.flagProblems ?? [];
      if (problems.length === 0) return { status: 'not-met', detail: 'every flag is in the flag table' };
      const table = d.flagTable;
      const list = problems.map(describe).join('; ');
      const ambiguous = problems.some((p) => p.kind === 'ambiguous');
      if (table?.authoritative || ambiguous)
        return {
          status: 'met',
          detail: `${list}: not accepted by ${table?.describes ?? 'vLLM'}'s argument parser, so vLLM would refuse to start`,
          at: problems[0].at,
        };
      return {
        status: 'unknown',
        detail: `${list}: unknown to faultline's flag table (vLLM ${table?.release ?? '?'}); whether ${table?.describes ?? 'this vLLM'} has it is not known (give --vllm-version of a release to decide it)`,
        at: problems[0].at,
        // The flag is in the launch: worth showing even while its acceptance is unknown.
        namedByLaunch: true,
      };
    },
  };
}
