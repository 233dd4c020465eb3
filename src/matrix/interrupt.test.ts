import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const standIn = fileURLToPath(new URL('../../test/fixtures/matrix/stand-in-server.mjs', import.meta.url));
const parent = fileURLToPath(new URL('../../test/fixtures/matrix/interrupt-parent.ts', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function interruptedRun(signals: NodeJS.Signals[], extraServerArgs: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-interrupt-'));
  const plan = join(dir, 'plan.yaml');
  writeFileSync(
    plan,
    `launch:
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}", --pid-file, "{cell_dir}/pids.json", --spawn-child${extraServerArgs.map((a) => `, ${a}`).join('')}]
  ready_timeout_s: 20
  stop_timeout_s: 1
factors:
  a: { levels: { "off": {}, "x": { argv: [--a, x] }, "y": { argv: [--a, y] } } }
  b: { levels: { "off": {}, "on": { argv: [--b] } } }
strength: 2
executor: { parallel: 2 }
`,
  );
  const runDir = join(dir, 'run');
  const child = spawn(process.execPath, ['--import', 'tsx', parent, plan, runDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Give up, but let the parent clean up its servers (a second SIGINT kills them at once).
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGINT'), 200);
      reject(new Error(`no probing started; stdout: ${stdout} stderr: ${stderr}`));
    }, 30_000);
    child.stdout.on('data', (d) => {
      stdout += d;
      if ((stdout.match(/PROBING/g) ?? []).length >= 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const cellDirs = readdirSync(join(runDir, 'cells')).filter((c) => existsSync(join(runDir, 'cells', c, 'pids.json')));
  const pids = cellDirs.flatMap((c) => Object.values(JSON.parse(readFileSync(join(runDir, 'cells', c, 'pids.json'), 'utf8'))) as number[]);
  const running = pids.filter(alive);
  for (const s of signals) {
    child.kill(s);
    await new Promise((r) => setTimeout(r, 50));
  }
  const code = await exited;
  await new Promise((r) => setTimeout(r, 100));
  return { dir, runDir, code, stdout, stderr, pids, running };
}

test('Ctrl-C during a run: servers and their children are stopped, the run says it was interrupted', { timeout: 60_000 }, async () => {
  const r = await interruptedRun(['SIGINT'], []);
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
  const r = await interruptedRun(['SIGINT', 'SIGINT'], ['--ignore-sigterm']);
  try {
    assert.equal(r.running.length, 4);
    assert.equal(r.code, 130, r.stderr);
    assert.deepEqual(r.pids.filter(alive), [], 'a process of the run outlived the interrupt');
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});
