/**
 * The engine commands' own command line, read by the same vLLM argv parser as a launch file. Unlike
 * lint, which reports a flag no release has as FL000 and checks the rest, the engine refuses it: a
 * server that silently ran without a flag the user typed would answer for a different launch.
 */
import { UserError } from '../../core/errors.js';
import { tokensFromArgv } from '../../deployment/argv-token.js';
import { parseVllmArgs, type VllmParse } from '../../deployment/vllm-args.js';
import type { FlagSpec } from '../../deployment/vllm-flags.js';

export function parseEngineArgv(flags: readonly string[], cwd: string, extraFlags: readonly FlagSpec[], helpCommand: string): VllmParse {
  const parsed = parseVllmArgs(tokensFromArgv([...flags], 'argv'), { baseDir: cwd, extraFlags: [...extraFlags] });
  // A JSON sub-key vLLM 0.23 lacks is read past (the engine ignores keys it has no use for), as before.
  for (const p of parsed.flagProblems.filter((x) => x.kind === 'sub-key'))
    parsed.notes.push({ value: `${p.option} is not a key vLLM 0.23 knows; the engine ignores it`, ...(p.at ? { at: p.at } : {}) });
  const [problem] = parsed.flagProblems.filter((x) => x.kind !== 'sub-key');
  if (!problem) return parsed;
  if (problem.kind === 'ambiguous')
    throw new UserError(`ambiguous option: ${problem.option} could match ${(problem.candidates ?? []).join(', ')}`, {
      code: 'E_FLAG_AMBIGUOUS',
      at: problem.at,
      hint: 'write the full option name',
    });
  if (problem.kind === 'choice' || problem.kind === 'sub-key-value')
    throw new UserError(`invalid choice '${problem.value ?? ''}' for ${problem.option}`, {
      code: 'E_VLLM_ARGS',
      at: problem.at,
      hint: `${problem.suggestion ? `did you mean ${problem.suggestion}? ` : ''}the engine takes only ${problem.checkedAgainst ?? 'the values it knows'}`,
    });
  throw new UserError(`unknown vLLM flag ${problem.option}`, {
    code: 'E_FLAG_UNKNOWN',
    at: problem.at,
    hint: problem.suggestion ? `did you mean ${problem.suggestion}?` : `see \`${helpCommand} --help\` for the flags it implements`,
  });
}
