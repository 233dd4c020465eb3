/**
 * An SGLang launch as a Deployment: the command parsed with its release's flag table, then —
 * once the GPU and model facts are known — SGLang's rewrites and auto-selection applied, so
 * `args` holds what SGLang runs (`sglang.written` keeps what the launch wrote). Problems SGLang's
 * parser would refuse to start with become notes that say so.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Located } from '../../../core/located.js';
import type { ArgToken } from '../../argv-token.js';
import type { Deployment } from '../../deployment.js';
import type { ArgValue, FlagProblem } from '../../vllm-parse-types.js';
import { reportUnknown } from '../../unknown-values.js';
import { parseSglangCommand } from './command.js';
import { resolveEffectiveLaunch } from './effective-launch.js';
import { tableFor } from './flag-table.js';

export interface SglangParsed {
  at?: SourceLocation;
  model?: Located<string>;
  written: Map<string, ArgValue>;
  notes: Located<string>[];
  table: ReturnType<typeof parseSglangCommand>['table'];
  /** Flags and choices the table lacks (lint's FL000), unless --allow-unknown-flags made them notes. */
  flagProblems: FlagProblem[];
  /** The table as Deployment.flagTable states it. */
  flagTable: NonNullable<Deployment['flagTable']>;
}

export function parseSglangLaunch(tokens: readonly ArgToken[], version: string | undefined, allowUnknown = false): SglangParsed {
  const cmd = parseSglangCommand(tokens, version);
  const notes = [
    ...cmd.notes,
    ...cmd.problems.map((p) => ({ ...p, value: `SGLang refuses to start with this launch: ${p.value}` })),
  ];
  const flagProblems: FlagProblem[] = [];
  const sink = { notes, problems: flagProblems, allowUnknown };
  for (const p of cmd.flagProblems) reportUnknown(sink, p, flagProblemNote(p));
  return {
    ...(cmd.at ? { at: cmd.at } : {}),
    ...(cmd.model ? { model: cmd.model } : {}),
    written: cmd.written,
    notes,
    table: cmd.table,
    flagProblems,
    flagTable: {
      release: cmd.table.sglangVersion ?? 'main',
      commit: cmd.table.source.commit,
      authoritative: cmd.chosen.authoritative,
      describes: cmd.chosen.describes,
    },
  };
}

/** The note --allow-unknown-flags leaves in place of the flag problem. */
function flagProblemNote(p: FlagProblem): string {
  if (p.kind === 'ambiguous') return `ambiguous option: ${p.option} could match ${(p.candidates ?? []).join(', ')} (SGLang refuses to start); not read`;
  if (p.kind === 'choice') return `${p.option} ${p.value ?? ''}: not among ${p.checkedAgainst ?? 'the choices faultline knows'}; taken as given`;
  return `unknown SGLang flag ${p.option}${p.suggestion ? ` (did you mean ${p.suggestion}?)` : ''}; recorded as given`;
}

/** Applies SGLang's rewrites to a Deployment whose GPU, model facts and version are settled. */
export function applySglangRewrites(
  d: Deployment,
  parsed: Pick<SglangParsed, 'written' | 'table'>,
  relocate: (at: SourceLocation | undefined) => SourceLocation | undefined,
): void {
  const resolved = resolveEffectiveLaunch({
    written: parsed.written,
    defaults: parsed.table.fieldDefaults,
    ...(d.gpu ? { sm: d.gpu.value.sm } : {}),
    ...(d.platform?.value === 'rocm' ? { hip: true } : {}),
    ...(d.modelFacts ? { modelFacts: d.modelFacts } : {}),
    ...(d.versions.sglang ? { version: d.versions.sglang.value } : {}),
    ...(d.at ? { origin: d.at } : {}),
  });
  const args = new Map<string, ArgValue>();
  for (const [k, v] of resolved.args) {
    const at = relocate(v.at) ?? v.at;
    args.set(k, at ? { value: v.value, at } : { value: v.value });
  }
  d.args = args;
  const rewrites = resolved.rewrites.map((r) => ({ ...r, ...(r.at ? { at: relocate(r.at) ?? r.at } : {}) }));
  for (const r of rewrites)
    d.notes.push({
      value: `SGLang sets ${r.field} = ${JSON.stringify(r.to)}: ${r.why}`,
      ...(r.at ? { at: r.at } : {}),
    });
  for (const [field, why] of resolved.unknown)
    d.notes.push({ value: `${field} is unknown: ${why}`, ...(d.at ? { at: d.at } : {}) });
  d.sglang = {
    table: {
      sglangVersion: parsed.table.sglangVersion,
      commit: parsed.table.source.commit,
      repository: parsed.table.source.upstream,
    },
    written: parsed.written,
    rewrites,
    unknown: resolved.unknown,
    defaults: parsed.table.fieldDefaults,
  };
}

/**
 * Runs SGLang's rewrites again on what the launch wrote, after facts were added to the Deployment
 * (guard learns the GPU, the installed SGLang and the model config only once the launch is read).
 */
export function reapplySglangRewrites(d: Deployment): void {
  if (!d.sglang) return;
  const table = tableFor(d.versions.sglang?.value).table;
  const before = new Set(d.sglang.rewrites.map((r) => `SGLang sets ${r.field} = `));
  d.notes = d.notes.filter((n) => ![...before].some((p) => n.value.startsWith(p)) && !/ is unknown: /.test(n.value));
  applySglangRewrites(d, { written: d.sglang.written, table }, (at) => at);
}
