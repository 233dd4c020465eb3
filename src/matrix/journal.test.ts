import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { CellResult } from './cell-result.js';
import { Journal, JOURNAL_FILE } from './journal.js';

const header = { type: 'run' as const, version: 1, planFile: 'p.yaml', planHash: 'abc', faultline: 'test', startedAt: 't0' };
const cell = (id: string): CellResult => ({
  id, phase: 'covering', config: [1, 0], levels: { a: 'on', b: 'off' }, outcome: 'pass', corruptRate: 0, probes: [], slot: 0, startedAt: 't', durationMs: 1,
});

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-journal-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('records are appended as JSON lines and read back on resume', () => {
  withDir((dir) => {
    const j = Journal.create(dir, header);
    j.append({ type: 'cell', cell: cell('c001') });
    j.close();
    const { journal, records } = Journal.resume(dir);
    journal.close();
    assert.deepEqual(records.map((r) => r.type), ['run', 'cell']);
    const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8').trim().split('\n');
    assert.equal(JSON.parse(lines[2]).type, 'resume');
  });
});

test('a torn last line (crash mid-write) is dropped and cut off, so the next record starts clean', () => {
  withDir((dir) => {
    const j = Journal.create(dir, header);
    j.append({ type: 'cell', cell: cell('c001') });
    j.close();
    appendFileSync(join(dir, JOURNAL_FILE), '{"type":"cell","cell":{"id":"c0');
    const { journal, records } = Journal.resume(dir);
    journal.append({ type: 'cell', cell: cell('c002') });
    journal.close();
    assert.deepEqual(records.map((r) => r.type), ['run', 'cell']);
    const again = Journal.resume(dir);
    again.journal.close();
    assert.deepEqual(again.records.filter((r) => r.type === 'cell').map((r) => (r.type === 'cell' ? r.cell.id : '')), ['c001', 'c002']);
  });
});

test('damage before the last line, a foreign file, a reused run dir: user errors with a hint', () => {
  withDir((dir) => {
    writeFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify(header)}\nnot json\n${JSON.stringify({ type: 'done', at: 'x' })}\n`);
    assert.throws(() => Journal.resume(dir), (e: unknown) => e instanceof UserError && e.at?.line === 2);
    assert.throws(() => Journal.create(dir, header), (e: unknown) => e instanceof UserError && /--resume/.test(e.hint ?? ''));
    writeFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify({ type: 'done', at: 'x' })}\n`);
    assert.throws(() => Journal.resume(dir), /does not start with a run record/);
  });
  assert.throws(() => Journal.resume('/nonexistent-run-dir'), (e: unknown) => e instanceof UserError && /no matrix run/.test(e.message));
});
