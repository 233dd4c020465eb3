/**
 * The canary's Prometheus metrics, per target: the last verdict (one gauge per verdict, 1 for the
 * one it has — absent until the first round ends, since no verdict is not a clean one), the last
 * round's corrupt-request ratio and duration, and counters of rounds, requests judged, corrupt
 * requests, probe errors and verdict changes.
 */
import { renderExposition, type Family, type Sample } from './exposition.js';
import { CANARY_VERDICTS, type CanaryVerdict, type Round } from './round.js';

interface TargetState {
  rounds: Map<CanaryVerdict, number>;
  judged: number;
  corrupt: number;
  failedRequests: number;
  changes: number;
  last?: Round;
}

/** A target URL as a label value: credentials in it (http://user:pass@host) never reach a scrape. */
export function targetLabel(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}

export class CanaryMetrics {
  private readonly targets = new Map<string, TargetState>();

  /** `build`: the labels of faultline_build_info (the CLI passes the package and catalog versions). */
  constructor(
    targets: readonly string[],
    private readonly build: Record<string, string> = {},
  ) {
    for (const t of targets) this.targets.set(t, this.fresh());
  }

  private fresh(): TargetState {
    return { rounds: new Map(CANARY_VERDICTS.map((v) => [v, 0])), judged: 0, corrupt: 0, failedRequests: 0, changes: 0 };
  }

  /** Records a finished round; returns the target's previous verdict (undefined on its first round). */
  record(round: Round): CanaryVerdict | undefined {
    let s = this.targets.get(round.target);
    if (!s) this.targets.set(round.target, (s = this.fresh()));
    const previous = s.last?.verdict;
    s.rounds.set(round.verdict, (s.rounds.get(round.verdict) ?? 0) + 1);
    s.judged += round.judged;
    s.corrupt += round.corrupt;
    s.failedRequests += round.failed;
    if (previous !== undefined && previous !== round.verdict) s.changes++;
    s.last = round;
    return previous;
  }

  families(): Family[] {
    const all = [...this.targets];
    const per = (f: (s: TargetState) => number | undefined, extra: Record<string, string> = {}): Sample[] =>
      all.flatMap(([t, s]) => {
        const value = f(s);
        return value === undefined ? [] : [{ labels: { target: targetLabel(t), ...extra }, value }];
      });
    return [
      gauge('faultline_build_info', 'faultline version and hazard catalog version.', [{ labels: this.build, value: 1 }]),
      gauge(
        'faultline_probe_verdict',
        "Last verdict of each target: 1 for the verdict it has, 0 for the others (no samples before a target's first round).",
        CANARY_VERDICTS.flatMap((v) =>
          per((s) => (s.last ? Number(s.last.verdict === v) : undefined), { verdict: v.toLowerCase() }),
        ),
      ),
      gauge(
        'faultline_probe_corrupt_request_ratio',
        'Corrupt requests over judged requests in the last round (NaN when it judged none).',
        per((s) => (s.last ? (s.last.judged ? s.last.corrupt / s.last.judged : NaN) : undefined)),
      ),
      gauge('faultline_probe_duration_seconds', 'Wall time of the last round.', per((s) => s.last && s.last.durationMs / 1000)),
      gauge(
        'faultline_probe_last_round_timestamp_seconds',
        'When the last round ended (Unix time).',
        per((s) => s.last && (s.last.startedAt.getTime() + s.last.durationMs) / 1000),
      ),
      counter(
        'faultline_probe_rounds_total',
        'Rounds finished, by verdict (error: the round could not run).',
        CANARY_VERDICTS.flatMap((v) => per((s) => s.rounds.get(v) ?? 0, { verdict: v.toLowerCase() })),
      ),
      counter('faultline_probe_requests_judged_total', 'Requests judged (identical, benign drift or corrupt).', per((s) => s.judged)),
      counter('faultline_probe_requests_corrupt_total', 'Requests judged corrupt.', per((s) => s.corrupt)),
      counter('faultline_probe_errors_total', 'Probe errors: rounds that could not run (kind="round") and requests that failed (kind="request").', [
        ...per((s) => s.rounds.get('ERROR') ?? 0, { kind: 'round' }),
        ...per((s) => s.failedRequests, { kind: 'request' }),
      ]),
      counter('faultline_probe_verdict_changes_total', 'Times the verdict differed from the previous round.', per((s) => s.changes)),
    ];
  }

  render(): string {
    return renderExposition(this.families());
  }
}

const gauge = (name: string, help: string, samples: Sample[]): Family => ({ name, help, type: 'gauge', samples });
const counter = (name: string, help: string, samples: Sample[]): Family => ({ name, help, type: 'counter', samples });
