/**
 * Liveness as a probe outcome: a request that never answered within the probe's deadline (every
 * attempt ended in a connect, headers or body timeout) is a hang, and a cell with a hang is
 * `timeout`, never `pass`, however clean its other requests read. The hung requests are named, so
 * the journal and the report say which prompts a server stopped answering.
 */
import type { ProbeReport, RequestRecord } from '../probe/types.js';

/** undici's timeout codes as the probe client writes them into a failed attempt's message. */
const TIMEOUT_CODES = /\b(UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT)\b/;

/** True when every error of a failed request is a timeout: a refusal or a 5xx is not a hang. */
export function isHung(record: RequestRecord): boolean {
  const { verdict, errors } = record.judgement;
  return verdict === 'failed' && errors.length > 0 && errors.every((e) => TIMEOUT_CODES.test(e));
}

/** The ids of the report's hung requests, in request order. */
export function hungRequests(report: Pick<ProbeReport, 'requests'>): string[] {
  return report.requests.filter(isHung).map((r) => r.id);
}

/** "3 requests hung (no answer in 60 s): r0, r4, r9" (at most `shown` ids, then a count). */
export function hungDetail(ids: readonly string[], timeoutS: number | undefined, shown = 8): string {
  const listed = ids.slice(0, shown).join(', ');
  const more = ids.length > shown ? ` and ${ids.length - shown} more` : '';
  return `${ids.length} request${ids.length === 1 ? '' : 's'} hung (no answer ${timeoutS === undefined ? 'within the deadline' : `in ${timeoutS} s`}): ${listed}${more}`;
}
