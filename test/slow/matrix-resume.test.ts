/**
 * Ctrl-C through the real CLI: SIGINT to `faultline matrix` mid-run stops every server it
 * launched (none is left alive) and exits 130 with a journal; `--resume` then finishes the run
 * with the same answer, launching no finished cell again (and a report that cannot be written does
 * not lose that answer). A small plan over the scale-defect model
 * (three factors, strength 2, no PASS confirmation) keeps it quick.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliCommand, cliCommandYaml, repoRoot, runCli } from '../helpers/cli.js';
import { scaleDefectPlan } from '../helpers/scale-defect-plan.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes whose command line holds `marker` (the run's unique served model name). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmd.includes(marker) && state !== 'Z') out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function cellRecords(journal: string): { id: string; outcome: string }[] {
  if (!existsSync(journal)) return [];
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { type: string; cell?: { id: string; outcome: string } })
    .flatMap((r) => (r.type === 'cell' && r.cell ? [r.cell] : []));
}

test('SIGINT stops every server and leaves a journal; --resume finishes with the same answer, no cell twice', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-int-'));
  const marker = `fl-int-${process.pid}-${Date.now()}`;
  const plan = join(dir, 'plan.yaml');
  writeFileSync(
    plan,
    scaleDefectPlan(
      `  cwd: ${JSON.stringify(repoRoot)}
  argv: [${cliCommandYaml()}, engine, serve, --model, models/tiny-swa-qscale, --emulate, sm100-affected,
         --served-model-name, {marker}, --max-model-len, "320", --port, "{port}"]`,
      marker,
    ),
  );
  const runDir = join(dir, 'run');
  const journal = join(runDir, 'journal.jsonl');
  const [program, ...pre] = cliCommand();
  const child = spawn(program, [...pre, 'matrix', plan, '--out', runDir, '--quiet'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  // interrupt once two cells are journaled and a server of the run is up
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline && !(cellRecords(journal).length >= 2 && processesWith(marker).length > 0)) await sleep(100);
  assert.ok(cellRecords(journal).length >= 2, `the run never got two cells in:\n${stderr}`);
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130, stderr);
  assert.match(stderr, /interrupted; every server of the run is stopped\. Continue with: .*--resume/);
  assert.deepEqual(processesWith(marker), [], 'no server of the run is left alive');
  const before = cellRecords(journal);

  // --html into a full disk: the verdict still comes out, with its exit status, and the write error after it
  const resumed = await runCli(['matrix', plan, '--resume', runDir, '--format', 'json', '--quiet', '--html', '/dev/full'], { timeoutMs: 240_000 });
  assert.equal(resumed.code, 1, resumed.stderr);
  assert.match(resumed.stderr, /error: could not write --html \/dev\/full: .*ENOSPC[\s\S]*the verdict above stands \(exit 1\)/);
  const report = JSON.parse(resumed.stdout) as {
    interactions: { status: string; interaction: Record<string, string> }[];
    launches: { reusedFromJournal: number };
  };
  assert.deepEqual(
    report.interactions.map((i) => [i.status, i.interaction]),
    [['verified', { kv_cache: 'fp8', q_quantization: 'disabled' }]],
  );
  assert.ok(report.launches.reusedFromJournal >= before.length, JSON.stringify(report.launches));
  const all = cellRecords(journal);
  const ids = all.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, `a cell was journaled twice: ${ids.join(' ')}`);
  for (const c of before) {
    // the engine writes its banner once per start: a finished cell was not launched again
    const starts = readFileSync(join(runDir, 'cells', c.id, 'stderr.log'), 'utf8').match(/^engine: /gm) ?? [];
    assert.equal(starts.length, 1, `${c.id} was launched ${starts.length} times`);
  }
  assert.deepEqual(processesWith(marker), []);
});
