/**
 * Version bounds of SGLang fixes known by pull request and merge date. SGLang cut its releases from
 * main, so a release line whose commit predates the merge does not contain the fix: the newest such
 * release with a flag table (data/sglang-flags, each table names its commit and date) is the last
 * one known to be affected; releases after it are "not established" until one is known to contain it.
 */
import { tableLines, tableStamp } from '../../../deployment/engines/sglang/flag-table.js';
import type { Condition } from '../../hazard.js';
import { affectedVersion } from '../versions.js';

/** The newest release table cut before `date` (YYYY-MM-DD, or YYYY-MM when only the month is on record). */
export function lastReleaseBefore(date: string): { version: string; date: string } | undefined {
  let best: { version: string; date: string } | undefined;
  for (const line of tableLines()) {
    const t = tableStamp(line);
    const d = t.date.slice(0, 10);
    if (t.sglangVersion && d < date) best = { version: t.sglangVersion, date: d };
  }
  return best;
}

export function sglangFixedByPr(pr: number, merged: string, what: string): Condition {
  const last = lastReleaseBefore(merged);
  return affectedVersion({
    pkg: 'sglang',
    fixedBy: `PR #${pr}`,
    ...(last ? { lastReported: last.version } : {}),
    record: `${what}; fixed by sgl-project/sglang PR #${pr} (merged ${monthName(merged)})${last ? `, after ${last.version} (cut ${last.date})` : ''}; the first release containing it is not established`,
  });
}

export function sglangOpen(what: string): Condition {
  return affectedVersion({ pkg: 'sglang', record: `${what}; no fix merged upstream` });
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-07` → `Jul 2026`; a full date stays as it is. */
function monthName(date: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(date);
  return m ? `${MONTHS[Number(m[2]) - 1]} ${m[1]}` : date;
}
