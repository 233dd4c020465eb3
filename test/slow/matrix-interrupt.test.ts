import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive, interruptedRun } from '../helpers/interrupted-run.js';

test('Ctrl-C during a run: servers and their children are stopped, the run says it was interrupted', { timeout: 60_000 }, async () => {
  const r = await interruptedRun(['SIGINT']);
  try {
    assert.equal(r.running.length, 4, `two servers with a child each were running: ${r.pids}`);
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /INTERRUPTED/);
    assert.deepEqual(r.pids.filter(alive), [], 'a process of the run outlived the interrupt');
    const journal = readFileSync(join(r.runDir, 'journal.jsonl'), 'utf8');
    assert.ok(!/"type":"cell"/.test(journal), 'cells in flight are not journaled');
    assert.match(journal, /"type":"reference"/);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('a second Ctrl-C kills every server group at once, even servers that ignore SIGTERM', { timeout: 60_000 }, async () => {
  const r = await interruptedRun(['SIGINT', 'SIGINT'], { serverArgs: ['--ignore-sigterm'] });
  try {
    assert.equal(r.running.length, 4);
    assert.equal(r.code, 130, r.stderr);
    assert.deepEqual(r.pids.filter(alive), [], 'a process of the run outlived the interrupt');
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});
