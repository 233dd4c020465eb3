import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execChild } from './exec-child.js';

const node = process.execPath;

test('the child’s exit code comes back unchanged', async () => {
  const r = await execChild([node, '-e', 'process.exit(5)'], { env: process.env, cwd: process.cwd() });
  assert.deepEqual(r, { code: 5 });
});

test('a child ended by a signal reports 128 + the signal number', async () => {
  const r = await execChild([node, '-e', 'process.kill(process.pid, "SIGKILL")'], {
    env: process.env,
    cwd: process.cwd(),
  });
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.code, 137);
});

test('a command that does not exist is exit 127 with a reason, not a crash', async () => {
  const r = await execChild(['faultline-no-such-program-xyz'], { env: process.env, cwd: process.cwd() });
  assert.equal(r.code, 127);
  assert.match(r.startError ?? '', /not found on PATH/);
});

test('SIGTERM sent to this process is forwarded to the child', async () => {
  const ready = join(mkdtempSync(join(tmpdir(), 'faultline-exec-')), 'ready');
  const body = `process.on("SIGTERM", () => process.exit(42)); require("fs").writeFileSync(${JSON.stringify(ready)}, "1"); setInterval(() => {}, 1000)`;
  const child = execChild([node, '-e', body], { env: process.env, cwd: process.cwd() });
  while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
  process.emit('SIGTERM', 'SIGTERM');
  assert.deepEqual(await child, { code: 42 });
  assert.equal(process.listenerCount('SIGTERM'), 0, 'handlers are removed afterwards');
});
