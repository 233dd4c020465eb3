/**
 * What the argv emulations do with a flag, choice, JSON sub-key or sub-key value that faultline's
 * tables do not have. When the table is the launch's own release the engine refuses it for
 * certain; when the launch's version is newer than the tables, a pre-release, or unknown, it may be
 * a value the running release has. Either way it is a flag problem (lint's FL000) and the rest of
 * the launch is read with the value as written, so no hazard hides behind it; with
 * `--allow-unknown-flags` it is a note instead.
 */
import type { Located } from '../core/located.js';
import type { FlagProblem } from './vllm-parse-types.js';

export interface UnknownValueSink {
  notes: Located<string>[];
  problems: FlagProblem[];
  /** --allow-unknown-flags: notes only. */
  allowUnknown: boolean;
}

/** Records the problem, or (with --allow-unknown-flags) the note that says the same. */
export function reportUnknown(sink: UnknownValueSink, problem: FlagProblem, note: string): void {
  if (sink.allowUnknown) sink.notes.push({ value: note, ...(problem.at ? { at: problem.at } : {}) });
  else sink.problems.push(problem);
}
