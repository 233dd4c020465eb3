/**
 * `--every 15m`: a probe interval as Prometheus writes durations (`90s`, `15m`, `1h30m`, `1d`),
 * units largest first, each at most once. A bare number is refused: "15" could mean seconds or
 * minutes, and a canary that probes sixty times too often loads the server it watches.
 */
import { UserError } from '../../core/errors.js';

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const ORDER = ['d', 'h', 'm', 's'] as const;
export const MIN_INTERVAL_MS = 1000;
export const MAX_INTERVAL_MS = 7 * UNIT_MS.d;

export function parseInterval(text: string, flag = '--every'): number {
  const bad = (why: string) =>
    new UserError(`${flag} ${JSON.stringify(text)}: ${why}`, {
      hint: `write a duration such as 30s, 15m, 1h or 1h30m (from 1s to 7d)`,
    });
  const parts = [...text.trim().matchAll(/(\d+)([dhms])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim())
    throw bad('not a duration');
  let ms = 0;
  let last = -1;
  for (const [, n, unit] of parts) {
    const rank = ORDER.indexOf(unit as (typeof ORDER)[number]);
    if (rank <= last) throw bad('units go largest first, each once (1h30m, not 30m1h)');
    last = rank;
    ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  if (ms < MIN_INTERVAL_MS) throw bad('shorter than 1s');
  if (ms > MAX_INTERVAL_MS) throw bad('longer than 7d');
  return ms;
}

/** The inverse, for log lines: 900000 → "15m", 5400000 → "1h30m". */
export function formatInterval(ms: number): string {
  let rest = Math.round(ms / 1000) * 1000;
  let out = '';
  for (const unit of ORDER) {
    const n = Math.floor(rest / UNIT_MS[unit]);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * UNIT_MS[unit];
  }
  return out || '0s';
}
