/**
 * An argv word as the sources see it: an ArgToken plus, when known, where each of its
 * characters was written — needed when the word is itself a shell script (`sh -c "…"`) whose
 * inner words must be located inside the file.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { ArgToken } from './launch-command.js';

export interface ArgField extends ArgToken {
  /** Location of character i of `text`; absent when only the word's start is known. */
  charAt?: (i: number) => SourceLocation | undefined;
}

/** Drops the per-character map: what goes into a LaunchCommand. */
export function toToken(f: ArgField): ArgToken {
  return {
    text: f.text,
    ...(f.at ? { at: f.at } : {}),
    ...(f.runtime ? { runtime: f.runtime } : {}),
    ...(f.spread ? { spread: true } : {}),
  };
}

/** A word made by faultline (e.g. the `vllm serve` an image entrypoint runs), located at `at`. */
export function synthesized(text: string, at: SourceLocation | undefined): ArgField {
  return at ? { text, at } : { text };
}
