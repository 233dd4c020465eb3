/**
 * A mistake the user can fix: bad flags, a broken file, a missing path.
 * The CLI prints `message` (with the location when there is one) and `hint`, then exits 2.
 * Anything else that escapes to the CLI is a bug in faultline and is reported as such.
 */
export interface SourceLocation {
  file: string;
  line: number; // 1-based
  column: number; // 1-based
}

export class UserError extends Error {
  readonly code: string;
  readonly hint?: string;
  readonly at?: SourceLocation;

  constructor(message: string, options: { code?: string; hint?: string; at?: SourceLocation; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UserError';
    this.code = options.code ?? 'E_USAGE';
    this.hint = options.hint;
    this.at = options.at;
  }
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof UserError;
}

export function formatLocation(at: SourceLocation): string {
  return `${at.file}:${at.line}:${at.column}`;
}

/** The one-paragraph text the CLI prints for a UserError. */
export function describeUserError(e: UserError): string {
  const where = e.at ? `${formatLocation(e.at)}: ` : '';
  const hint = e.hint ? `\nhint: ${e.hint}` : '';
  return `error: ${where}${e.message}${hint}`;
}
