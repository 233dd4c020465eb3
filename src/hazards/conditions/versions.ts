/**
 * Version bounds from the public record, as a condition. The record rarely gives a clean range, so the
 * bounds say exactly what is known:
 * - `fixed`: first release containing the fix → at or above it the hazard does not apply;
 * - `fixedBy`: a fix was merged (e.g. "PR #3849") but its first release is not established;
 * - `containsFixFrom`: a release known to contain that fix because it was cut after the fix merged (not
 *   necessarily the first): at or above it the hazard does not apply, below it stays "not established";
 * - `introduced`: first release with the defect → below it the hazard does not apply;
 * - `firstReported` / `lastReported`: the release range people reported; outside it "not established".
 * An unknown version is "unknown" when a fix exists (an upgrade may have cleared it) and "met" when
 * none exists: then no version clears it, which is a deduction, not a guess.
 */
import type { Deployment } from '../../deployment/deployment.js';
import { compareVersions, parseVersion } from '../../deployment/versions.js';
import type { Condition, ConditionResult } from '../hazard.js';

export interface VersionBounds {
  pkg: 'vllm' | 'flashinfer' | 'sglang';
  introduced?: string;
  firstReported?: string;
  lastReported?: string;
  fixed?: string;
  fixedBy?: string;
  /** A release cut after the `fixedBy` fix merged, with the dates that show it: { version, why }. */
  containsFixFrom?: { version: string; why: string };
  /** The record names the affected builds only by pull request: no release number can be placed. */
  onlyByPullRequest?: boolean;
  /** What the record says, one clause: "reported on 0.6.14; open upstream". */
  record: string;
}

const flagFor = {
  vllm: '--vllm-version',
  flashinfer: '--flashinfer-version',
  sglang: '--sglang-version',
} as const;
const nameFor = { vllm: 'vLLM', flashinfer: 'flashinfer-python', sglang: 'SGLang' } as const;

export function affectedVersion(b: VersionBounds): Condition {
  const name = nameFor[b.pkg];
  const range = [b.introduced && `≥ ${b.introduced}`, b.fixed && `< ${b.fixed}`].filter(Boolean).join(', ');
  return {
    name: `${b.pkg}-version`,
    // A range narrows a hazard; a release inside it does not make a launch ask for the hazard.
    role: 'bound',
    versionBounds: b,
    description: `${name} is in the affected range${range ? ` (${range})` : ''}: ${b.record}`,
    check(d: Deployment): ConditionResult {
      const v = d.versions[b.pkg];
      if (b.onlyByPullRequest)
        return {
          status: 'unknown',
          detail: `${v ? `${name} ${v.value}: ` : ''}${b.record}`,
          at: v?.at,
        };
      if (!v) {
        if (b.fixed || b.fixedBy)
          return {
            status: 'unknown',
            detail: `${name} version not given (${flagFor[b.pkg]}); ${b.record}`,
          };
        return {
          status: 'met',
          detail: `no fixed ${name} release exists (${b.record}), so any version is affected`,
        };
      }
      const ver = v.value;
      if (!parseVersion(ver))
        return {
          status: 'unknown',
          detail: `${name} version "${ver}" is not a version faultline can compare`,
          at: v.at,
        };
      if (b.containsFixFrom && compareVersions(ver, b.containsFixFrom.version) >= 0)
        return {
          status: 'not-met',
          detail: `${name} ${ver} contains ${b.fixedBy ?? 'the fix'}: ${b.containsFixFrom.why}`,
          at: v.at,
        };
      if (b.fixed && compareVersions(ver, b.fixed) >= 0)
        return { status: 'not-met', detail: `${name} ${ver} contains the fix (${b.fixed})`, at: v.at };
      if (b.introduced && compareVersions(ver, b.introduced) < 0)
        return {
          status: 'not-met',
          detail: `${name} ${ver} predates the defect (introduced in ${b.introduced})`,
          at: v.at,
        };
      if (b.firstReported && compareVersions(ver, b.firstReported) < 0)
        return {
          status: 'unknown',
          detail: `${name} ${ver} is older than the first reported ${b.firstReported}; whether it is affected is not established`,
          at: v.at,
        };
      if (b.fixedBy && !b.fixed && (!b.lastReported || compareVersions(ver, b.lastReported) > 0))
        return {
          status: 'unknown',
          detail: `${name} ${ver}: fixed by ${b.fixedBy}, but which release first contains it is not established (${b.record})`,
          at: v.at,
        };
      return { status: 'met', detail: `${name} ${ver}: ${b.record}`, at: v.at };
    },
  };
}
