#!/usr/bin/env node
// `npm test`: the build (which type-checks every file, scripts/build.mjs), lint, then the unit and
// end-to-end tiers in one pool (scripts/run-tests.mjs). Stops at the first failing phase and prints
// each phase's wall time, the total and the machine's load: the budget is 5 minutes on 2 cores.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';

// npm's own scripts, so each phase is the command package.json names
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const phases = [
  ['build + typecheck', npm, ['run', '--silent', 'build']],
  ['lint', npm, ['run', '--silent', 'lint']],
  ['tests', process.execPath, ['scripts/run-tests.mjs', ...process.argv.slice(2)]],
];
const started = Date.now();
const times = [];
for (const [name, command, args] of phases) {
  const t0 = Date.now();
  const r = spawnSync(command, args, { stdio: 'inherit' });
  times.push(`${name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (r.status !== 0) {
    console.error(`npm test: ${name} failed (${times.join(', ')})`);
    process.exit(r.status ?? 1);
  }
}
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(`npm test: ${times.join(', ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s wall (load ${load})`);
