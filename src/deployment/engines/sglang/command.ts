/**
 * An SGLang server command → its parsed arguments: the entry point (`python -m
 * sglang.launch_server`, `sglang serve`), the flag table of the launch's release, and SGLang's
 * argparse on the rest. `sglang serve` also takes `--model-type {auto,llm,diffusion}`, which it
 * removes before the server's parser sees the arguments.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Located } from '../../../core/located.js';
import type { ArgToken } from '../../argv-token.js';
import type { ArgValue, FlagProblem } from '../../vllm-parse-types.js';
import { parseSglangArgv } from './argparse.js';
import { tableFor, type ChosenTable, type SglangFlagTable } from './flag-table.js';

export const SGLANG_MODULES: readonly string[] = ['sglang.launch_server'];
const PYTHON = /^python(\d+(\.\d+)*)?$/;

export interface SglangCommand {
  entryPoint: 'launch_server' | 'serve';
  at?: SourceLocation;
  model?: Located<string>;
  /** ServerArgs field → value as written. */
  written: Map<string, ArgValue>;
  table: SglangFlagTable;
  /** How the table was chosen: whether it is the launch's own release line. */
  chosen: ChosenTable;
  /** Malformed input SGLang's parser would refuse to start with. */
  problems: Located<string>[];
  /** Flags and choices the table lacks (lint's FL000). */
  flagProblems: FlagProblem[];
  notes: Located<string>[];
}

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** How many words start the server: `sglang serve` → 2, `python3 -m sglang.launch_server` → 3. */
export function sglangProgramLength(tokens: readonly { text: string }[]): number | undefined {
  const first = basename(tokens[0]?.text ?? '');
  if (first === 'sglang' && tokens[1]?.text === 'serve') return 2;
  if (PYTHON.test(first)) {
    const m = tokens.findIndex((t) => t.text === '-m');
    if (m > 0 && SGLANG_MODULES.includes(tokens[m + 1]?.text ?? '')) return m + 2;
  }
  return undefined;
}

export function parseSglangCommand(tokens: readonly ArgToken[], version: string | undefined): SglangCommand {
  const start = sglangProgramLength(tokens);
  if (start === undefined) throw new Error('parseSglangCommand: not an SGLang server command');
  const entryPoint = start === 2 && basename(tokens[0].text) === 'sglang' ? 'serve' : 'launch_server';
  const chosen = tableFor(version);
  const notes: Located<string>[] = [{ value: chosen.why, ...(tokens[0]?.at ? { at: tokens[0].at } : {}) }];
  let rest = tokens.slice(start);
  if (entryPoint === 'serve') rest = withoutModelType(rest, notes);
  const parsed = parseSglangArgv(rest, chosen.table);
  for (const n of parsed.notes) notes.push({ value: n.message, ...(n.at ? { at: n.at } : {}) });
  const problems = parsed.problems.map((p) => ({ value: p.message, ...(p.at ? { at: p.at } : {}) }));
  const modelArg = parsed.args.get('model_path');
  const model =
    typeof modelArg?.value === 'string'
      ? { value: modelArg.value, ...(modelArg.at ? { at: modelArg.at } : {}) }
      : undefined;
  if (!model)
    problems.push({
      value: 'the following arguments are required: --model-path/--model',
      ...(tokens[0]?.at ? { at: tokens[0].at } : {}),
    });
  return {
    entryPoint,
    ...(tokens[0]?.at ? { at: tokens[0].at } : {}),
    ...(model ? { model } : {}),
    written: parsed.args,
    table: chosen.table,
    chosen,
    problems,
    flagProblems: parsed.flagProblems.map((p) =>
      p.kind === 'choice' ? { ...p, definite: chosen.authoritative } : p,
    ),
    notes,
  };
}

function withoutModelType(tokens: readonly ArgToken[], notes: Located<string>[]): ArgToken[] {
  const out: ArgToken[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.text === '--model-type' || t.text.startsWith('--model-type=')) {
      const value = t.text.includes('=') ? t.text.split('=')[1] : tokens[++i]?.text;
      notes.push({
        value: `sglang serve --model-type ${value ?? ''}: read by sglang serve itself`,
        ...(t.at ? { at: t.at } : {}),
      });
      continue;
    }
    out.push(t);
  }
  return out;
}
