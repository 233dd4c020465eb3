/**
 * Whether the engine takes every flag and value of the launch as written, read from the argv
 * emulation's flag problems (deployment/vllm-argparse.ts, vllm-config-check.ts, and SGLang's
 * engines/sglang/argparse.ts, llama-server's engines/llama-cpp/argparse.ts): a flag, choice, JSON
 * sub-key or sub-key value its release's table does not have, an abbreviation that matches several
 * flags, a flag the table marks removed, or a value the parser cannot read. Checked against the launch's own
 * release, such a problem makes the engine refuse to start; against tables older than the launch
 * (or with the version unknown), the engine may simply be newer than faultline's tables.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { FlagProblem } from '../../deployment/vllm-parse-types.js';
import type { Condition, ConditionResult } from '../hazard.js';

const ENGINE_NAMES: Record<Deployment['engine'], { name: string; versionOption: string }> = {
  vllm: { name: 'vLLM', versionOption: '--vllm-version' },
  sglang: { name: 'SGLang', versionOption: '--sglang-version' },
  'llama.cpp': { name: 'llama-server', versionOption: '--llama-cpp-version' },
  ollama: { name: 'Ollama', versionOption: '--ollama-version' },
};

function describe(p: FlagProblem, engine: string): string {
  if (p.kind === 'ambiguous') return `${p.option} is an ambiguous abbreviation (could match ${p.candidates?.join(', ')})`;
  const hint = p.suggestion ? `; did you mean ${p.suggestion}?` : '';
  if (p.kind === 'removed') return `${p.option}: removed in ${p.checkedAgainst ?? 'this release'}${p.suggestion ? ` (use ${p.suggestion})` : ''}`;
  if (p.kind === 'value') return `${p.option} ${p.value ?? ''}: expected ${p.checkedAgainst ?? 'a value the parser reads'}`;
  if (p.kind === 'unknown' && p.checkedAgainst) return `${p.option} (${p.checkedAgainst})${hint}`;
  if (p.kind === 'choice' || p.kind === 'sub-key-value')
    return `${p.option} ${p.value ?? ''}: not among ${p.checkedAgainst ?? 'the values faultline knows'}${hint}`;
  if (p.kind === 'sub-key') return `${p.option}: not among ${p.checkedAgainst ?? 'the keys faultline knows'}${hint}`;
  const known = p.knownIn?.length ? ` (faultline's tables have it in ${engine} ${span(p.knownIn)})` : '';
  return `${p.option}${known}${hint}`;
}

function span(releases: string[]): string {
  return releases.length === 1 ? releases[0] : `${releases[0]}–${releases[releases.length - 1]}`;
}

export function flagsNotAccepted(): Condition {
  return {
    name: 'flag-not-accepted',
    description: 'a flag or value of the launch is not one the engine accepts as written',
    check(d: Deployment): ConditionResult {
      const problems = d.flagProblems ?? [];
      if (problems.length === 0) return { status: 'not-met', detail: 'every flag and value is in the flag tables' };
      const table = d.flagTable;
      const { name: engine, versionOption } = ENGINE_NAMES[d.engine];
      const definite = problems.filter(
        (p) => p.kind === 'ambiguous' || p.definite || (p.kind === 'unknown' && table?.authoritative),
      );
      const shown = definite.length ? definite : problems;
      const list = shown.map((p) => describe(p, engine)).join('; ');
      if (definite.length)
        return {
          status: 'met',
          detail: `${list}: not accepted by ${table?.describes ?? engine}'s argument parser, so ${engine} would refuse to start`,
          at: definite[0].at,
        };
      return {
        status: 'unknown',
        detail: `${list}: unknown to faultline's flag table (${engine} ${table?.release ?? '?'}); whether ${table?.describes ?? `this ${engine}`} has it is not known (give ${versionOption} of a release to decide it); the rest of the launch is checked with the value as written`,
        at: problems[0].at,
        // The flag is in the launch: worth showing even while its acceptance is unknown.
        namedByLaunch: true,
      };
    },
  };
}
