/**
 * What the slow matrix tests assert about a real engine's answer, whatever it is: the shape of a
 * corruption-found report, which cells met wrong output, and which lost their server to a crash.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';

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
