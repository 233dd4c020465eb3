/**
 * Running a plan and what the slow matrix tests assert about a real engine's answer, whatever it is: the shape of a
 * corruption-found report, which cells met wrong output, and which lost their server to a crash.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from './cli.js';

type Cell = AttributionReport['cells'][number];

/** Corrupt, or too few wrong requests for a verdict (probe-error with a corrupt rate above zero). */
export const metWrongOutput = (c: Cell): boolean =>
  c.outcome === 'corrupt' || (c.outcome === 'probe-error' && (c.corruptRate ?? 0) > 0);

/** Corruption found: exit 1, a verified interaction whose minimal cell is corrupt, each with a remedy that passed. */
export function assertCorruptionVerified(t: TestContext, report: AttributionReport, code: number): void {
  assert.equal(code, 1);
  const verified = report.interactions.filter((i) => i.status === 'verified');
  assert.ok(verified.length > 0, 'corruption found comes with a verified interaction');
  for (const v of verified) {
    t.diagnostic(
      `interaction ${JSON.stringify(v.interaction)}; remedies ${JSON.stringify(v.remedies.map((m) => m.change))}`,
    );
    assert.ok(
      v.minimalCell && report.cells.find((c) => c.id === v.minimalCell)?.outcome === 'corrupt',
      'its minimal cell is corrupt',
    );
    assert.ok(v.remedies.length > 0, 'each verified interaction has a remedy that passed');
  }
}

/** A cell whose server llama.cpp crashed: no verdict (probe-error), and its stderr says SIGSEGV. */
export function assertCrashedBySegfault(runDir: string, c: Cell): void {
  assert.equal(c.outcome, 'probe-error', `${c.id}: a cell with the crashing combination never passes (${c.detail})`);
  const stderr = join(runDir, 'cells', c.id, 'stderr.log');
  assert.ok(existsSync(stderr) && /killed by SIGSEGV/.test(readFileSync(stderr, 'utf8')), `${c.id}: its server died by SIGSEGV`);
}

/**
 * Runs `faultline matrix PLAN --format json` in a temporary directory (removed after the test),
 * holds it to exit 0, 1 or 3, and prints every cell; returns the report, the exit code and the run
 * directory (cells/<id>/stderr.log).
 */
export async function runPlanForAnswer(
  t: TestContext,
  plan: string,
  timeoutMs: number,
): Promise<{ report: AttributionReport; code: number; runDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fl-plan-answer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runDir = join(dir, 'run');
  const started = Date.now();
  const r = await runCli(['matrix', join(repoRoot, plan), '--out', runDir, '--format', 'json', '--quiet'], {
    cwd: repoRoot,
    timeoutMs,
  });
  t.diagnostic(`${plan}: ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${r.code}`);
  assert.ok(r.code === 0 || r.code === 1 || r.code === 3, `exit 0, 1 or 3, not ${r.code}\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  for (const c of report.cells)
    t.diagnostic(`${c.id} ${c.phase} ${c.outcome} ${JSON.stringify(c.levels)} ${c.detail ?? ''}`);
  t.diagnostic(
    `verdict ${report.verdict}; launches ${report.launches.used}; untested pairs ${report.coverage.uncoveredByVerdicts} of ${report.coverage.validTuples}`,
  );
  return { report, code: r.code ?? -1, runDir };
}
