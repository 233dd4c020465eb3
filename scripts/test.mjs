#!/usr/bin/env node
// `npm test`: the build (which type-checks every file, scripts/build.mjs) and lint side by side
// (each is one thread: two cores run both in the time of the build), then the unit and end-to-end
// tiers in one pool (scripts/run-tests.mjs). Stops when a phase fails and prints each phase's wall
// time, the total and the machine's load: the budget is 5 minutes on 2 cores.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';

// npm's own scripts, so each phase is the command package.json names
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const stages = [
  [
    ['build + typecheck', npm, ['run', '--silent', 'build']],
    ['lint', npm, ['run', '--silent', 'lint']],
  ],
  [['tests', process.execPath, ['scripts/run-tests.mjs', ...process.argv.slice(2)]]],
];

function run(name, command, args) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', (e) => resolve({ name, status: 1, seconds: 0, error: e }));
    child.on('close', (status) => resolve({ name, status: status ?? 1, seconds: (Date.now() - t0) / 1000 }));
  });
}

const started = Date.now();
const times = [];
for (const stage of stages) {
  const results = await Promise.all(stage.map(([name, command, args]) => run(name, command, args)));
  times.push(...results.map((r) => `${r.name} ${r.seconds.toFixed(0)} s`));
  const failed = results.find((r) => r.status !== 0);
  if (failed) {
    console.error(`npm test: ${failed.name} failed${failed.error ? ` (${failed.error.message})` : ''} (${times.join(', ')})`);
    process.exit(failed.status);
  }
}
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(`npm test: ${times.join(', ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s wall (load ${load})`);
