/**
 * The catalog's table tests, in the shape of ESLint's RuleTester: per hazard, `valid` launches that
 * must not produce its finding at all (neither definite nor "possibly"), and `invalid` launches with
 * the findings they must produce — hazard id, line and column, severity, definite or possibly.
 * `casesFromData` generates both tables from the hazard's own data: the failing and clean examples,
 * every remedy applied to the failing example (valid, by id), every non-remedy applied to it
 * (invalid, by id), and the failing example with each stated fact removed (a missing fact is never
 * safe: it must still produce a finding).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changeText } from '../../../src/hazards/change.js';
import { evaluateConditions, evaluateHazard } from '../../../src/hazards/evaluate.js';
import { wordPosition, type ExampleLaunch } from '../../../src/hazards/examples/example-launch.js';
import type { Finding } from '../../../src/hazards/finding.js';
import type { Hazard, HazardId, Severity } from '../../../src/hazards/hazard.js';
import { applyToExample, exampleDeployment } from './example-deployment.js';

export interface ExpectedFinding {
  hazard: HazardId;
  line?: number;
  column?: number;
  severity?: Severity;
  possibly?: boolean;
}

/** A launch, or how to make it (a change applied to the failing example runs inside its test). */
export type CaseLaunch = ExampleLaunch | (() => ExampleLaunch);
const resolve = (l: CaseLaunch): ExampleLaunch => (typeof l === 'function' ? l() : l);

export interface ValidCase {
  name: string;
  launch: CaseLaunch;
  /** The one condition that must be the reason it is clean (a non-remedy that only avoids the trigger). */
  onlyBy?: string;
}

export interface InvalidCase {
  name: string;
  launch: CaseLaunch;
  errors: ExpectedFinding[];
}

export interface HazardCases {
  valid: ValidCase[];
  invalid: InvalidCase[];
}

let fileCounter = 0;
const fileFor = (h: Hazard) => `${h.id}-${++fileCounter}.sh`;

function explain(f: Finding | undefined): string {
  if (!f) return 'no finding';
  return `${f.severity}${f.possibly ? ' (possibly)' : ''} at ${f.location.line}:${f.location.column}; ${f.conditions
    .filter((c) => c.status !== 'met')
    .map((c) => `${c.name} ${c.status}: ${c.detail}`)
    .join(' | ')}`;
}

export function checkValid(h: Hazard, c: ValidCase): void {
  const launch = resolve(c.launch);
  const d = exampleDeployment(launch, fileFor(h));
  const f = evaluateHazard(h, d);
  assert.equal(f, undefined, `${h.id} must not fire on:\n${launch.command}\n${explain(f)}`);
  if (c.onlyBy) {
    const notMet = evaluateConditions(h, d)
      .filter((x) => x.status === 'not-met')
      .map((x) => x.name);
    assert.deepEqual(notMet, [c.onlyBy], `${h.id}: only ${c.onlyBy} may stop holding`);
  }
}

export function checkInvalid(h: Hazard, c: InvalidCase): void {
  const launch = resolve(c.launch);
  const d = exampleDeployment(launch, fileFor(h));
  const f = evaluateHazard(h, d);
  const findings = f ? [f] : [];
  assert.equal(findings.length, c.errors.length, `${h.id} on:\n${launch.command}\n${explain(f)}`);
  c.errors.forEach((e, i) => {
    const got = findings[i];
    assert.equal(got.hazard.id, e.hazard);
    const where = `${launch.command}\n${explain(got)}`;
    if (e.line !== undefined) assert.equal(got.location.line, e.line, `line: ${where}`);
    if (e.column !== undefined) assert.equal(got.location.column, e.column, `column: ${where}`);
    if (e.severity !== undefined) assert.equal(got.severity, e.severity, `severity: ${where}`);
    if (e.possibly !== undefined) assert.equal(got.possibly, e.possibly, `possibly: ${where}`);
  });
}

/** Registers one node:test case per table row, named by hazard and case. */
export function runHazardCases(h: Hazard, cases: HazardCases): void {
  describe(`${h.id} ${h.alias}`, () => {
    for (const c of cases.valid) test(`valid: ${c.name}`, () => checkValid(h, c));
    for (const c of cases.invalid) test(`invalid: ${c.name}`, () => checkInvalid(h, c));
  });
}

const FACTS = [
  ['gpu', '--gpu'],
  ['model', '--model-config'],
  ['vllm', '--vllm-version'],
  ['flashinfer', '--flashinfer-version'],
] as const;

export function casesFromData(h: Hazard): HazardCases {
  const { failing, clean } = h.examples;
  const failingDeployment = () => exampleDeployment(failing, `${h.id}-failing.sh`);
  const at = (launch: ExampleLaunch) => wordPosition(launch.command, failing.points);
  const valid: ValidCase[] = [{ name: 'the clean example', launch: clean }];
  const invalid: InvalidCase[] = [
    {
      name: `the failing example, at ${failing.points}`,
      launch: failing,
      errors: [
        {
          hazard: h.id,
          ...at(failing),
          severity: failing.possibly ? 'warning' : h.severity,
          possibly: failing.possibly ?? false,
        },
      ],
    },
  ];
  for (const r of h.remedies)
    valid.push({
      name: `remedy ${r.id} (${changeText(r)})`,
      launch: () => applyToExample(failing, failingDeployment(), r.change),
    });
  const stillFires: Omit<ExpectedFinding, 'hazard'> = {
    severity: failing.possibly ? 'warning' : h.severity,
    possibly: failing.possibly ?? false,
  };
  for (const r of h.nonRemedies) {
    const name = `non-remedy ${r.id} (${changeText(r)})`;
    if (r.avoidsBy) {
      const launch = () => applyToExample(failing, failingDeployment(), r.change);
      valid.push({ name: `${name} only avoids it by ${r.avoidsBy}`, launch, onlyBy: r.avoidsBy });
      continue;
    }
    // The finding still points at the same word when the change leaves it in place.
    let changed: ExampleLaunch | undefined;
    const launch = () => (changed ??= applyToExample(failing, failingDeployment(), r.change));
    invalid.push({
      name,
      launch,
      get errors() {
        return [{ hazard: h.id, ...at(launch()), ...stillFires }];
      },
    });
  }
  for (const [key, option] of FACTS) {
    if (failing[key] === undefined) continue;
    const launch: ExampleLaunch = { ...failing };
    delete launch[key];
    invalid.push({
      name: `the failing example without ${option} is never clean`,
      launch,
      errors: [{ hazard: h.id }],
    });
  }
  return { valid, invalid };
}
