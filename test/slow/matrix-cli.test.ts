/**
 * `faultline matrix` through the real CLI, the quick cases: --dry-run launches nothing, plan
 * errors exit 2 at the plan's line:col, and a level whose launch fails is LAUNCH-FAILED (never a
 * pass or a corruption). The full runs are in test/slow/matrix-seed.test.ts and test/slow/matrix-resume.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliCommandYaml, repoRoot, runCli } from '../helpers/cli.js';

const seedPlan = join(repoRoot, 'examples/seed-b200/matrix.yaml');

test('--dry-run prints the factors and the array, launches nothing, and JSON is clean', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-dry-'));
  const text = await runCli(['matrix', seedPlan, '--dry-run'], { cwd: dir });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /8 factors, strength 3/);
  assert.match(text.stdout, /kv_cache: bf16\* \| fp8/);
  assert.match(text.stdout, /if speculative=off then spec_method=mtp/);
  assert.match(text.stdout, /spec_method: mtp\* \| ngram {3}\(choice\)/);
  assert.match(text.stdout, /m1\s+maximal\s+fp8/);
  assert.match(text.stdout, /launches before localization .* exhaustive: 320/);
  const json = await runCli(['matrix', seedPlan, '--dry-run', '--format', 'json'], { cwd: dir });
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { covering: { levels: Record<string, string>; argv: string[] }[]; exhaustive: number; maximal: unknown[] };
  assert.equal(parsed.exhaustive, 320);
  assert.ok(parsed.covering.length > 5);
  assert.ok(parsed.covering.every((r) => r.argv.includes('{port}')), 'placeholders stay for the executor');
  // nothing was launched: no run directory appeared
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(dir), []);
});

function planWith(edit: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-plan-'));
  const path = join(dir, 'plan.yaml');
  writeFileSync(path, edit(readFileSync(seedPlan, 'utf8')).replace('cwd: ../..', `cwd: ${JSON.stringify(repoRoot)}`));
  return path;
}

function lineOf(path: string, needle: string): number {
  return readFileSync(path, 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

test('an unknown placeholder is exit 2 at its line and column', async () => {
  const path = planWith((t) => t.replace('--port, "{port}"]', '--port, "{prot}"]'));
  const r = await runCli(['matrix', path, '--dry-run']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`plan\\.yaml:${lineOf(path, '{prot}')}:\\d+: unknown placeholder \\{prot\\}`));
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

test('an unsatisfiable constraint is exit 2 at its line and column', async () => {
  const path = planWith((t) =>
    t.replace(
      'constraints:\n',
      'constraints:\n  - forbid: { kv_cache: bf16 }\n  - forbid: { kv_cache: fp8 }\n',
    ),
  );
  const r = await runCli(['matrix', path]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`plan\\.yaml:${lineOf(path, 'forbid: { kv_cache: fp8 }')}:\\d+: .*unsatisfiable`));
});

test('a level whose launch fails (bad flag) is LAUNCH-FAILED, never pass or corrupt', async () => {
  // two factors, confirm 0, few requests: a small run over the quick scale-defect model
  const plan = `launch:
  cwd: ${JSON.stringify(repoRoot)}
  argv: [${cliCommandYaml()}, engine, serve, --model, models/tiny-swa-qscale, --max-model-len, "320", --port, "{port}"]
  ready_timeout_s: 60
  stop_timeout_s: 5
factors:
  eager:
    levels:
      off:
      on: { argv: [--enforce-eager] }
  bogus:
    levels:
      off:
      on: { argv: [--no-such-flag] }
strength: 2
confirm: 0
probe: { suite: short, window: 128, requests: 9, max_tokens: 8, target_rate: 0.3 }
`;
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-lf-'));
  const path = join(dir, 'plan.yaml');
  writeFileSync(path, plan);
  const html = join(dir, 'report.html');
  const r = await runCli(['matrix', path, '--out', join(dir, 'run'), '--format', 'json', '--quiet', '--html', html], {
    timeoutMs: 180_000,
  });
  assert.equal(r.code, 3, `inconclusive: some 2-way combinations ran without a verdict\n${r.stderr}`);
  const report = JSON.parse(r.stdout) as {
    cells: { levels: Record<string, string>; outcome: string }[];
    launchFailures: { levels: Record<string, string> }[];
    verdict: string;
  };
  const withBogus = report.cells.filter((c) => c.levels.bogus === 'on');
  const without = report.cells.filter((c) => c.levels.bogus === 'off');
  assert.ok(withBogus.length > 0);
  assert.ok(withBogus.every((c) => c.outcome === 'launch-failed'), JSON.stringify(withBogus));
  assert.ok(without.every((c) => c.outcome === 'pass'), JSON.stringify(without));
  assert.deepEqual(report.launchFailures[0].levels, { bogus: 'on' });
  assert.equal(report.verdict, 'inconclusive');
  assert.match(readFileSync(join(dir, 'run', 'journal.jsonl'), 'utf8'), /"outcome":"launch-failed"/);
  // the run directory keeps its attribution; --html renders it (launch failures shown, never as pass)
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'run', 'attribution.json'), 'utf8')), report);
  assert.match(readFileSync(html, 'utf8'), /LAUNCH-FAILED|launch-failed/i);
});
