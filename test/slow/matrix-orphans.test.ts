/**
 * No orphan servers, with real signals and real processes: stand-in servers (each with a child
 * process, in a process group of its own) under a faultline-like parent; every pid is checked in
 * /proc afterwards. The signals a closed terminal (SIGHUP) or a supervisor sends stop the run as
 * Ctrl-C does; after SIGKILL the reaper stops the servers; with the reaper killed too, the
 * journal's record of each process group lets `--cleanup` and `--resume` stop the survivors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { allGone, alive, interruptedRun } from '../helpers/interrupted-run.js';
import { memoryIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { handleInterrupts, STOP_SIGNALS, exitCodeForSignal } from '../../src/matrix/interrupt.js';
import { parseJournal } from '../../src/matrix/journal.js';
import { unstoppedGroups } from '../../src/matrix/survivors.js';

/** A signal to oneself is handled on a later turn of the event loop; on a loaded machine that can take a while. */
async function until(done: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

function journalOf(runDir: string) {
  const path = join(runDir, 'journal.jsonl');
  return parseJournal(path, readFileSync(path, 'utf8')).records;
}

test('SIGINT, SIGTERM, SIGHUP and SIGQUIT each abort the run once, and say which came (exit 128 + n)', async () => {
  for (const signal of STOP_SIGNALS) {
    const controller = new AbortController();
    const exits: number[] = [];
    const handle = handleInterrupts(controller, (code) => exits.push(code));
    process.kill(process.pid, signal);
    await until(() => controller.signal.aborted);
    assert.ok(controller.signal.aborted, `${signal} aborted the run`);
    assert.equal(handle.received, signal);
    process.kill(process.pid, signal);
    await until(() => exits.length > 0);
    assert.deepEqual(exits, [exitCodeForSignal(signal)], `a second ${signal} exits at once`);
    handle.release();
  }
  assert.deepEqual(STOP_SIGNALS.map(exitCodeForSignal), [130, 143, 129, 131]);
});

test('SIGHUP (a closed terminal) stops every server and its child; each process group is journaled and marked stopped', { timeout: 60_000 }, async () => {
  const r = await interruptedRun(['SIGHUP']);
  try {
    assert.equal(r.running.length, 4, `two servers with a child each were running: ${r.pids}`);
    assert.equal(r.code, 129, r.stderr);
    assert.deepEqual(r.pids.filter(alive), [], 'a process of the run outlived SIGHUP');
    const records = journalOf(r.runDir);
    const servers = records.filter((x) => x.type === 'server');
    assert.ok(servers.length >= 2, 'the server groups are in the journal');
    assert.deepEqual(unstoppedGroups(records), [], 'each is marked stopped');
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('SIGKILL of faultline: the reaper stops the servers and their children', { timeout: 60_000 }, async () => {
  const r = await interruptedRun(['SIGKILL']);
  try {
    assert.equal(r.signal, 'SIGKILL');
    assert.equal(r.running.length, 4);
    assert.ok(r.reaper !== undefined, 'a reaper was started');
    assert.ok(await allGone(r.pids, 8000), `left running after SIGKILL: ${r.pids.filter(alive)}`);
    assert.ok(await allGone([r.reaper!], 3000), 'the reaper exits when its work is done');
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('SIGKILL of faultline and its reaper: `matrix --cleanup RUN_DIR` stops the survivors from the journal', { timeout: 60_000 }, async () => {
  const r = await interruptedRun(['SIGKILL'], {
    beforeSignals: ({ reaper }) => {
      if (reaper) process.kill(reaper, 'SIGKILL');
    },
  });
  try {
    assert.equal(r.running.length, 4);
    await new Promise((res) => setTimeout(res, 300));
    const orphans = r.pids.filter(alive);
    assert.equal(orphans.length, 4, 'with nothing left to stop them, the servers outlive the run');
    const io = memoryIO();
    assert.equal(await main(['matrix', '--cleanup', r.runDir], io), 0, io.stderr());
    assert.match(io.stdout(), /stopped 2 server\(s\) left running by .*: c\d+ \(process group \d+: 2 processes\)/);
    assert.deepEqual(r.pids.filter(alive), [], 'cleanup stopped every process of the run');
    assert.deepEqual(unstoppedGroups(journalOf(r.runDir)), []);
    const again = memoryIO();
    assert.equal(await main(['matrix', '--cleanup', r.runDir], again), 0);
    assert.match(again.stdout(), /no server of .* is running/);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('SIGKILL of faultline and its reaper: `--resume` stops the survivors before it launches anything; neither runs under a live faultline', { timeout: 60_000 }, async () => {
  const refusals: string[] = [];
  const r = await interruptedRun(['SIGKILL'], {
    beforeSignals: async ({ reaper, runDir, parentPid }) => {
      // the run is live: a second faultline must neither clean it up nor resume it
      for (const args of [['matrix', '--cleanup', runDir], ['matrix', join(runDir, '..', 'plan.yaml'), '--resume', runDir]]) {
        const io = memoryIO();
        assert.equal(await main(args, io), 2);
        refusals.push(io.stderr());
      }
      assert.ok(alive(parentPid));
      if (reaper) process.kill(reaper, 'SIGKILL');
    },
  });
  try {
    for (const text of refusals) assert.match(text, /is still being run by faultline \(pid \d+\); cannot (clean up|resume) it now\nhint: .*kill -INT \d+/);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(r.pids.filter(alive).length, 4, 'with nothing left to stop them, the servers outlive the run');
    const io = memoryIO();
    const code = await main(['matrix', r.plan, '--resume', r.runDir, '--quiet'], io);
    assert.equal(code, 3, io.stderr()); // the stand-ins answer no probe: inconclusive, but the run went on
    const stderr = io.stderr();
    const stoppedAt = stderr.indexOf('stopped 2 server(s) the interrupted run left running: c001');
    assert.ok(stoppedAt >= 0, stderr);
    assert.ok(stoppedAt < stderr.search(/c\d+ maximal:/), 'the survivors were stopped before the first launch');
    assert.deepEqual(r.pids.filter(alive), [], 'no process of the killed run is left');
    assert.deepEqual(unstoppedGroups(journalOf(r.runDir)), [], 'every group the two runs started is journaled as stopped');
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});
