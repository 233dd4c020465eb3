/**
 * A llama-server launch as a Deployment's parts: the flag table for the launch's llama.cpp (a
 * release tag given with --llama-cpp-version is authoritative; a build number or nothing is read
 * with the newest table, "possibly"), llama-server's own parsing of the LLAMA_ARG_* environment and
 * the command line (argparse.ts), and the named facts (facts.ts). Problems llama-server would refuse
 * to start with are flag problems (lint's FL000), or notes with --allow-unknown-flags.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Located } from '../../../core/located.js';
import type { ArgToken } from '../../argv-token.js';
import type { Deployment } from '../../deployment.js';
import type { ServingFacts } from '../../serving-facts.js';
import { reportUnknown } from '../../unknown-values.js';
import type { FlagProblem } from '../../vllm-parse-types.js';
import { parseLlamaServerArgv, type LlamaArg } from './argparse.js';
import { llamaServerProgram } from './command.js';
import { servingFacts } from './facts.js';
import { tableFor, type ChosenLlamaTable, type LlamaCppVersion } from './flag-table.js';

export interface LlamaCppParsed {
  at?: SourceLocation;
  model?: Located<string>;
  args: Map<string, LlamaArg>;
  facts: ServingFacts;
  notes: Located<string>[];
  flagProblems: FlagProblem[];
  flagTable: NonNullable<Deployment['flagTable']>;
  chosen: ChosenLlamaTable;
  envRead: { name: string; option: string }[];
}

export function parseLlamaCppLaunch(
  tokens: readonly ArgToken[],
  env: Map<string, Located<string>>,
  version: LlamaCppVersion | undefined,
  allowUnknown = false,
): LlamaCppParsed {
  const chosen = tableFor(version);
  const start = tokens[0]?.at;
  const notes: Located<string>[] = [{ value: chosen.why, ...(start ? { at: start } : {}) }];
  if (llamaServerProgram(tokens) === 'server')
    notes.push({
      value: `${tokens[0].text}: the name llama.cpp builds before mid-2024 gave llama-server; read as llama-server`,
      ...(start ? { at: start } : {}),
    });
  const parsed = parseLlamaServerArgv(tokens.slice(1), {
    table: chosen.table,
    authoritative: chosen.authoritative,
    env,
  });
  notes.push(...parsed.notes);
  const flagProblems: FlagProblem[] = [];
  const sink = { notes, problems: flagProblems, allowUnknown };
  for (const p of parsed.flagProblems) reportUnknown(sink, p, problemNote(p));
  const facts = servingFacts(parsed.args, chosen.table, start, parsed.spreads);
  const m = facts.model && facts.model.from !== 'default' ? facts.model : undefined;
  const model = m ? { value: m.value, ...(m.at ? { at: m.at } : {}) } : undefined;
  if (!model)
    notes.push({
      value:
        'no model given (-m, -hf, --model-url or LLAMA_ARG_MODEL): llama-server starts as a router of the models in its cache or --models-dir',
      ...(start ? { at: start } : {}),
    });
  return {
    ...(start ? { at: start } : {}),
    ...(model ? { model } : {}),
    args: parsed.args,
    facts,
    notes,
    flagProblems,
    chosen,
    envRead: parsed.envRead,
    flagTable: {
      release: chosen.table.llamaCppTag,
      commit: chosen.table.source.commit,
      authoritative: chosen.authoritative,
      describes: chosen.describes,
    },
  };
}

/** The note --allow-unknown-flags leaves in place of the flag problem. */
function problemNote(p: FlagProblem): string {
  if (p.kind === 'removed')
    return `${p.option}: removed in ${p.checkedAgainst ?? 'llama.cpp'}${p.suggestion ? ` (use ${p.suggestion})` : ''}; read as given`;
  if (p.kind === 'choice' || p.kind === 'value')
    return `${p.option} ${p.value ?? ''}: not ${p.checkedAgainst ?? 'a value llama-server takes'}; taken as given`;
  return `unknown llama-server option ${p.option}${p.suggestion ? ` (did you mean ${p.suggestion}?)` : ''}; recorded as given`;
}
