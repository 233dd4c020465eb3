/**
 * The whole seed plan through Slurm, beside the same plan on the local executor, in one run:
 * examples/slurm/matrix.yaml (every cell an sbatch job of the cluster the Slurm commands reach,
 * e.g. scripts/slurm-local.sh's) and examples/seed-b200/matrix.yaml with --parallel 2 (the same
 * factors, probe and cap, local processes), in interleaved rounds. Prints, per executor, the
 * verdict and interaction found, launches, wall time (median over rounds) and the ratio, with the
 * load beside every figure. The anchor is the local executor: what Slurm costs on top of it.
 *
 *   scripts/slurm-local.sh start && node --import tsx bench/matrix-slurm.ts [--rounds 1]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slurmUnavailable } from '../test/helpers/slurm-cluster.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 1) || 1;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

interface Result {
  seconds: number;
  verdict: string;
  interaction: string;
  launches: number;
  load: string;
}

function run(plan: string, extra: string[]): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'fl-bench-slurm-'));
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/faultline.js'), 'matrix', join(root, plan), '--out', join(dir, 'run'), '--format', 'json', '--quiet', ...extra], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0 && code !== 1 && code !== 3) return reject(new Error(`${plan}: exit ${code}`));
      const report = JSON.parse(out) as { verdict: string; interactions: { status: string; interaction: Record<string, string> }[]; launches: { used: number } };
      const found = report.interactions.filter((i) => i.status === 'verified').map((i) => Object.entries(i.interaction).map(([f, l]) => `${f}=${l}`).join(' + '));
      resolve({ seconds: (Date.now() - started) / 1000, verdict: report.verdict, interaction: found.join('; ') || '(none)', launches: report.launches.used, load: load() });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const why = slurmUnavailable();
if (why) {
  console.error(`bench/matrix-slurm: no Slurm cluster reachable (${why}); start one with scripts/slurm-local.sh start`);
  process.exit(2);
}
const results: Record<'local' | 'slurm', Result[]> = { local: [], slurm: [] };
for (let r = 0; r < rounds; r++) {
  // interleaved, the order alternating, so both see the same machine
  const order: ('local' | 'slurm')[] = r % 2 === 0 ? ['slurm', 'local'] : ['local', 'slurm'];
  for (const kind of order) {
    const result = kind === 'slurm' ? await run('examples/slurm/matrix.yaml', []) : await run('examples/seed-b200/matrix.yaml', ['--parallel', '2']);
    results[kind].push(result);
    console.log(`round ${r + 1} ${kind}: ${result.verdict}, ${result.interaction}, ${result.launches} launches, ${result.seconds.toFixed(0)} s (load ${result.load})`);
  }
}
const s = median(results.slurm.map((x) => x.seconds));
const l = median(results.local.map((x) => x.seconds));
console.log(`median over ${rounds} round(s): Slurm ${s.toFixed(0)} s, local ${l.toFixed(0)} s, Slurm / local = ${(s / l).toFixed(2)} (load now ${load()})`);
