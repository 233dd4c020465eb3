/**
 * Runs hazards over deployments. The rule (ARCHITECTURE.md): all conditions met → a finding at the
 * hazard's severity; any not-met → nothing; otherwise (some unknown, none not-met) → a warning that
 * names the unknown conditions and why they are unknown ("possibly affected"). A possible finding that
 * no met `feature` or `fact` condition distinguishes (conditions' `role`, hazard.ts) depends on facts
 * only: `splitBySignal` keeps those apart from the findings.
 */
import type { SourceLocation } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import type { EvaluatedCondition, Finding } from './finding.js';
import {
  candidateValues,
  runtimeArgs,
  runtimeSubKeys,
  subKeyCandidates,
  withArgValue,
  withSubKeyValue,
} from '../deployment/runtime-candidates.js';
import type { ArgValue, RuntimeValue } from '../deployment/vllm-parse-types.js';
import type { Condition, ConditionResult, Hazard } from './hazard.js';
import { withHardwareCandidates } from './conditions/hardware-candidates.js';
import { perDeployment } from '../deployment/per-deployment.js';
import { hazards as catalog } from './index.js';

export function evaluateConditions(h: Hazard, d: Deployment): EvaluatedCondition[] {
  return evaluateUntil(h, d, false);
}

/** The hazard's conditions in order; with `stopAtNotMet`, none after the first not met (the hazard cannot apply). */
function evaluateUntil(h: Hazard, d: Deployment, stopAtNotMet: boolean): EvaluatedCondition[] {
  const { runtime, subKeys } = runtimeOf(d);
  const out: EvaluatedCondition[] = [];
  for (const written of h.conditions) {
    const c = withHardwareCandidates(written);
    const r = runtime.length || subKeys.length ? checkOverRuntimeValues(c, d, runtime, subKeys) : c.check(d);
    const e: EvaluatedCondition = {
      name: c.name,
      description: c.description,
      status: r.status,
      detail: r.detail,
    };
    if (r.at) e.at = r.at;
    const turnedOn = r.status === 'met' && (c.role ?? 'feature') !== 'bound' && !r.byDefault;
    if (turnedOn || (r.status === 'unknown' && r.namedByLaunch)) e.distinguishing = true;
    out.push(e);
    if (stopAtNotMet && r.status === 'not-met') break;
  }
  return out;
}

/** A launch's run-time arguments and sub-keys, found once per launch rather than once per hazard. */
const runtimeOf = perDeployment((d) => ({ runtime: runtimeArgs(d), subKeys: runtimeSubKeys(d) }));

/**
 * A condition over a launch with run-time values: checked with each value the argument could take
 * (one argument at a time). The same answer for every value is the answer; different answers make
 * the condition unknown, naming the value and what settles it.
 */
function checkOverRuntimeValues(
  c: Condition,
  d: Deployment,
  runtime: [string, ArgValue][],
  subKeys: [string, string, RuntimeValue][] = [],
): ConditionResult {
  const base = c.check(d);
  let answer = base;
  // A run-time key inside a JSON flag: the same rule, one key at a time.
  for (const [dest, key, rt] of subKeys) {
    const statuses = new Set(
      subKeyCandidates(dest, key).map((v) => c.check(withSubKeyValue(d, dest, key, v)).status),
    );
    if (statuses.size === 1) continue;
    const settle = rt.names.length
      ? ` (settle it with ${rt.names.map((n) => `--set ${n}=…`).join(' ')})`
      : '';
    const at = d.args.get(dest)?.at;
    return {
      status: 'unknown',
      detail: `depends on --${dest.replace(/_/g, '-')}'s ${key}, whose value ${rt.text} is known only when the launch runs${settle}`,
      ...(at ? { at } : base.at ? { at: base.at } : {}),
    };
  }
  for (const [dest, arg] of runtime) {
    const results = candidateValues(d, dest).map((v) => c.check(withArgValue(d, dest, v)));
    const statuses = new Set(results.map((r) => r.status));
    if (statuses.size === 1) {
      const only = results[0];
      if (only.status !== answer.status && answer === base) answer = only;
      continue;
    }
    const rt = arg.runtime;
    const settle = rt?.names.length
      ? ` (settle it with ${rt.names.map((n) => `--set ${n}=…`).join(' ')})`
      : '';
    return {
      status: 'unknown',
      detail: `depends on --${dest.replace(/_/g, '-')}, whose value ${rt?.text ?? ''} is known only when the launch runs${settle}`,
      ...(arg.at ? { at: arg.at } : base.at ? { at: base.at } : {}),
    };
  }
  return answer;
}

export function evaluateHazard(h: Hazard, d: Deployment): Finding | undefined {
  if (!h.engines.includes(d.engine)) return undefined;
  const conditions = evaluateUntil(h, d, true);
  if (conditions.some((c) => c.status === 'not-met')) return undefined;
  const unknown = conditions.filter((c) => c.status === 'unknown');
  const possibly = unknown.length > 0;
  const message = possibly
    ? `possibly affected: ${h.summary} — not known: ${unknown.map((c) => `${c.name} (${c.detail})`).join('; ')}`
    : h.summary;
  return {
    hazard: h,
    severity: possibly ? 'warning' : h.severity,
    possibly,
    dependsOnFactsOnly: possibly && !conditions.some((c) => c.distinguishing),
    message,
    location: locate(h, conditions, d),
    conditions,
    deployment: d,
  };
}

/** The finding points at the hazard's chosen condition, else any located condition, else the launch. */
function locate(h: Hazard, conditions: EvaluatedCondition[], d: Deployment): SourceLocation {
  const preferred = conditions.find((c) => c.name === h.locateAt)?.at;
  if (preferred) return preferred;
  const inFile = conditions.find((c) => c.at && c.at.file === d.source.file)?.at;
  return inFile ?? d.at ?? d.model?.at ?? { file: d.source.file, line: 1, column: 1 };
}

/** Every finding for every deployment, ordered by file, line, column, then hazard id. */
export function lintDeployments(deployments: Deployment[], hazards: readonly Hazard[] = catalog): Finding[] {
  const findings: Finding[] = [];
  for (const d of deployments)
    for (const h of hazards) {
      const f = evaluateHazard(h, d);
      if (f) findings.push(f);
    }
  return findings.sort(compareFindings);
}

function compareFindings(a: Finding, b: Finding): number {
  const la = a.location;
  const lb = b.location;
  if (la.file !== lb.file) return la.file < lb.file ? -1 : 1;
  return (
    la.line - lb.line ||
    la.column - lb.column ||
    (a.hazard.id < b.hazard.id ? -1 : a.hazard.id > b.hazard.id ? 1 : 0)
  );
}

/** Findings the launch or the given facts single out, and those only facts not given could make apply. */
export function splitBySignal(all: readonly Finding[]): { findings: Finding[]; dependOnFacts: Finding[] } {
  return {
    findings: all.filter((f) => !f.dependsOnFactsOnly),
    dependOnFacts: all.filter((f) => f.dependsOnFactsOnly),
  };
}
