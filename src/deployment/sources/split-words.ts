/**
 * Splits a string into argv words with shell quoting rules but without running a shell:
 * what Docker Compose does to a string `command:`, and what a launcher does to an env var of
 * extra flags (KServe's VLLM_ADDITIONAL_ARGS). `$VAR` is not a shell variable here; it stays as
 * written and `unsetReason` says why.
 */
import { UserError } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';
import { expandWord } from './shell-expand.js';
import { parseShell, ShellSyntaxError, type SimpleCommand } from './shell-lexer.js';

export function splitWords(field: ArgField, unsetReason: string, notes: Located<string>[]): ArgField[] {
  const fallback = field.at;
  const locate = (o: number) => field.charAt?.(o) ?? fallback ?? { file: '', line: 0, column: 0 };
  let commands: SimpleCommand[];
  try {
    commands = parseShell(field.text);
  } catch (e) {
    if (e instanceof ShellSyntaxError)
      throw new UserError(`cannot split into words: ${e.message}`, { code: 'E_SHELL_SYNTAX', at: locate(e.offset), hint: e.hint });
    throw e;
  }
  const env = { vars: new Map(), locate, notes, unsetReason };
  // Operators such as `;` are not special without a shell; their words still count.
  return commands.flatMap((c) =>
    c.words.flatMap((w) =>
      expandWord(w, env, false).map((f) => ({
        text: f.text,
        at: locate(f.offsets[0] ?? w.start),
        charAt: (i: number) => locate(f.offsets[Math.min(i, f.offsets.length - 1)] ?? w.start),
      })),
    ),
  );
}
