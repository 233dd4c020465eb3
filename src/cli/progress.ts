/**
 * Progress for long commands (matrix launches, probe requests, kernel verify dumps), always on
 * stderr so stdout stays machine-readable (`--format json`). On a terminal it is one live line,
 * redrawn at most every `liveIntervalMs`; otherwise, or with `--quiet`, plain timestamped lines,
 * at most one per `plainIntervalMs`, the first after that long: work that ends sooner leaves no
 * state lines in a log (log lines and messages to done() are always written).
 */
import type { CliIO } from './io.js';

export interface Progress {
  /** The current state ("12/40 launches, c013 running"); shown live or as a throttled line. */
  update(message: string): void;
  /** An event worth its own line ("c013: CORRUPT"). */
  log(message: string): void;
  /** Clears the live line; writes `message` as a last line when given. */
  done(message?: string): void;
}

export interface ProgressOptions {
  /** Names the command on every line ("matrix", "probe", "kernel verify"). */
  label: string;
  /** Plain lines even on a terminal. */
  quiet?: boolean;
  now?: () => number;
  liveIntervalMs?: number;
  plainIntervalMs?: number;
}

const CLEAR_LINE = '\r\x1b[K';

export function createProgress(io: Pick<CliIO, 'err' | 'isTTY'>, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const live = io.isTTY && !options.quiet;
  const interval = live ? (options.liveIntervalMs ?? 100) : (options.plainIntervalMs ?? 2000);
  const stamp = () => new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let last = live ? -Infinity : now();
  let printedState = false;
  let shown = '';
  let pending: string | undefined;

  const line = (message: string) => `${stamp()} ${options.label}: ${message}\n`;
  const draw = (message: string) => {
    shown = message;
    io.err(`${CLEAR_LINE}${options.label}: ${message}`);
  };

  return {
    update(message) {
      const t = now();
      if (t - last < interval) {
        pending = message;
        return;
      }
      last = t;
      pending = undefined;
      if (live) draw(message);
      else {
        io.err(line(message));
        printedState = true;
      }
    },
    log(message) {
      if (live) {
        io.err(`${CLEAR_LINE}${line(message)}`);
        if (shown) draw(shown);
      } else io.err(line(message));
    },
    done(message) {
      if (live && shown) io.err(CLEAR_LINE);
      // the last state was held back by the throttle: a log that already shows states gets it too
      if (!live && printedState && pending !== undefined && message === undefined) io.err(line(pending));
      if (message !== undefined) io.err(line(message));
      shown = '';
      pending = undefined;
    },
  };
}
