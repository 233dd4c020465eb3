/**
 * Signal over noise on the corpus of real public launch files (test/fixtures/wild and its sglang/
 * folder): linted without --gpu or --model-config, as a CI gate lints a pull request, a file gets a
 * finding only for a hazard whose distinguishing feature it turns on; hazards only unknown facts could
 * make apply are one summary line. The distribution of findings per file is printed; the median must be
 * at most 2, and every hazard an expectations row requires must still fire.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isUserError } from '../../src/core/errors.js';
import { runLint, type LintOutcome } from '../../src/hazards/lint-run.js';

const wild = fileURLToPath(new URL('../fixtures/wild/', import.meta.url));
const notLaunchFiles = new Set(['SOURCES.md', 'expectations.json']);

interface Row {
  file: string;
  mustFire?: string[];
}
const rows = JSON.parse(readFileSync(join(wild, 'expectations.json'), 'utf8')) as Row[];
const required = new Map(rows.map((r) => [r.file, r.mustFire ?? []]));

const files = [
  ...readdirSync(wild).filter((f) => !notLaunchFiles.has(f) && f !== 'sglang'),
  ...readdirSync(join(wild, 'sglang'))
    .filter((f) => !notLaunchFiles.has(f))
    .map((f) => join('sglang', f)),
];

/** The outcome, or undefined for a file the corpus records as refused (exit 2: no launch, bad input). */
function lint(file: string, possible = false): LintOutcome | undefined {
  try {
    return runLint({ files: [file], cwd: wild, possible });
  } catch (e) {
    if (isUserError(e)) return undefined;
    throw e;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

test('without --gpu or --model-config the median real launch file has at most 2 findings', (t) => {
  const perFile: { file: string; findings: number; dependOnFacts: number; possible: number }[] = [];
  for (const file of files) {
    const o = lint(file);
    if (!o) continue;
    const everything = lint(file, true);
    perFile.push({
      file,
      findings: o.findings.length,
      dependOnFacts: o.dependOnFacts.length,
      possible: everything?.findings.length ?? 0,
    });
    // --possible lists exactly what the summary line stood for, as findings.
    assert.equal(everything?.findings.length, o.findings.length + o.dependOnFacts.length, file);
  }
  assert.ok(perFile.length >= 60, `${perFile.length} launch files linted`);
  const counts = perFile.map((p) => p.findings);
  const histogram = new Map<number, number>();
  for (const n of counts) histogram.set(n, (histogram.get(n) ?? 0) + 1);
  const dist = [...histogram].sort((a, b) => a[0] - b[0]).map(([n, k]) => `${n}:${k}`);
  t.diagnostic(`${perFile.length} launch files; findings per file (count:files) ${dist.join(' ')}`);
  t.diagnostic(
    `median ${median(counts)} findings per file; with --possible median ${median(perFile.map((p) => p.possible))}`,
  );
  for (const p of perFile.filter((x) => x.findings > 2))
    t.diagnostic(`  ${p.file}: ${p.findings} findings (${p.dependOnFacts} more depend on facts not given)`);
  assert.ok(median(counts) <= 2, `median ${median(counts)}`);
});

test('every hazard an expectations row requires still fires, and no definite finding is summed up', () => {
  let definite = 0;
  for (const file of files) {
    const o = lint(file);
    if (!o) continue;
    const fired = new Set<string>(o.findings.map((f) => f.hazard.id));
    for (const id of required.get(file) ?? []) assert.ok(fired.has(id), `${file}: ${id} must fire`);
    // A hazard whose every condition is met is a finding whatever its features: only "possibly" ones move.
    for (const f of lint(file, true)?.findings.filter((x) => !x.possibly) ?? []) {
      assert.ok(fired.has(f.hazard.id), `${file}: definite ${f.hazard.id} left out of the findings`);
      definite++;
    }
  }
  assert.ok(definite > 0, 'the corpus has definite findings to keep');
});

test('the summary line stands for the hazards left out, and they never change the exit status', () => {
  let withSummary = 0;
  for (const file of files) {
    const o = lint(file);
    if (!o) continue;
    for (const f of o.dependOnFacts) {
      assert.equal(f.possibly, true, `${file}: ${f.hazard.id} is definite yet left out`);
      assert.ok(
        f.conditions.every((c) => !c.distinguishing),
        `${file}: ${f.hazard.id} has a distinguishing condition met yet is left out`,
      );
    }
    for (const f of o.findings.filter((x) => x.possibly))
      assert.ok(
        f.conditions.some((c) => c.distinguishing),
        `${file}: ${f.hazard.id} is listed without a distinguishing condition met`,
      );
    if (o.dependOnFacts.length) withSummary++;
  }
  assert.ok(withSummary > 0, 'some real file has hazards that depend on facts not given');
});
