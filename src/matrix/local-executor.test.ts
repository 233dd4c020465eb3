import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LaunchRequest } from './executor.js';
import { createLocalExecutor } from './local-executor.js';
import { groupAlive, liveGroups } from './process-groups.js';

const standIn = fileURLToPath(new URL('../../test/fixtures/matrix/stand-in-server.mjs', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // a zombie is not alive
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function request(cellId: string, extra: string[] = [], slot = 0): LaunchRequest {
  return {
    cellId,
    config: [],
    levels: { a: 'on' },
    argv: [process.execPath, standIn, '--port', '{port}', '--pid-file', '{cell_dir}/pids.json', ...extra],
    env: { STAND_IN_TOKEN: 'secret-value' },
    slot,
  };
}

const signal = new AbortController().signal;

test('launch → healthy handle on a free port; stop ends the server and its child; logs in the cell dir', async () => {
  const runDir = mkdtempSync(join(tmpdir(), 'faultline-local-'));
  try {
    const executor = createLocalExecutor({ runDir, slots: 2, gpus: ['3', '4,5'], health: '/health', readyTimeoutMs: 10_000, stopTimeoutMs: 2000 });
    const result = await executor.launch(request('c001', ['--spawn-child', '--ready-after', '300'], 1), signal);
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.match(result.server.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await fetch(`${result.server.baseUrl}/health`)).status, 200);
    const pids = JSON.parse(readFileSync(join(runDir, 'cells/c001/pids.json'), 'utf8')) as { server: number; child: number };
    assert.ok(alive(pids.server) && alive(pids.child));
    await result.server.stop();
    assert.ok(!alive(pids.server), 'server still alive');
    assert.ok(!alive(pids.child), 'grandchild still alive');
    assert.equal(groupAlive(pids.server), false);
    assert.deepEqual(liveGroups(), []);
    await result.server.stop(); // twice is fine
    const stdout = readFileSync(join(runDir, 'cells/c001/stdout.log'), 'utf8');
    assert.match(stdout, /CUDA_VISIBLE_DEVICES=4,5/);
    const launch = JSON.parse(readFileSync(join(runDir, 'cells/c001/launch.json'), 'utf8'));
    assert.equal(launch.env.STAND_IN_TOKEN, '[redacted]');
    assert.ok(!launch.argv.includes('{port}'));
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

test('a server that exits at start is launch-failed with the end of its stderr', async () => {
  const runDir = mkdtempSync(join(tmpdir(), 'faultline-local-'));
  try {
    const executor = createLocalExecutor({ runDir, slots: 1, health: '/health', readyTimeoutMs: 10_000, stopTimeoutMs: 1000 });
    const result = await executor.launch(request('c002', ['--exit-at-start', '2']), signal);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.outcome, 'launch-failed');
    assert.match(result.detail, /exited with status 2/);
    assert.match(result.detail, /unrecognized arguments: --bad-flag/);
    const missing = await executor.launch({ ...request('c003'), argv: ['/nonexistent/server-binary', '{port}'] }, signal);
    assert.equal(missing.ok, false);
    if (!missing.ok) assert.equal(missing.outcome, 'launch-failed');
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

test('never healthy → timeout, and nothing of it is left running', async () => {
  const runDir = mkdtempSync(join(tmpdir(), 'faultline-local-'));
  try {
    const executor = createLocalExecutor({ runDir, slots: 1, health: '/health', readyTimeoutMs: 1200, stopTimeoutMs: 500 });
    const result = await executor.launch(request('c004', ['--never-ready', '--spawn-child', '--ignore-sigterm']), signal);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.outcome, 'timeout');
    const pids = JSON.parse(readFileSync(join(runDir, 'cells/c004/pids.json'), 'utf8')) as { server: number; child: number };
    assert.ok(!alive(pids.server) && !alive(pids.child), 'SIGKILL after the grace period ends even a server that ignores SIGTERM');
    assert.ok(existsSync(join(runDir, 'cells/c004/stderr.log')));
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

test('{faultline_root} in argv is the package running the plan: a script named through it starts', async () => {
  const runDir = mkdtempSync(join(tmpdir(), 'faultline-local-'));
  try {
    const executor = createLocalExecutor({ runDir, slots: 1, health: '/health', readyTimeoutMs: 10_000, stopTimeoutMs: 2000 });
    const req = { ...request('c001'), argv: [process.execPath, '{faultline_root}/test/fixtures/matrix/stand-in-server.mjs', '--port', '{port}'] };
    const result = await executor.launch(req, signal);
    assert.equal(result.ok, true, result.ok ? '' : JSON.stringify(result));
    if (!result.ok) return;
    await result.server.stop();
    const launch = JSON.parse(readFileSync(join(runDir, 'cells/c001/launch.json'), 'utf8'));
    assert.equal(launch.argv[1], standIn);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});
