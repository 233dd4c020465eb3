/**
 * Small things a new user meets first: a command group without its subcommand is a usage error,
 * every long-running command's --help has examples, `engine serve --help` says what the server
 * refuses, a missing model directory is named as missing, and matrix progress names a cell's
 * phase as the report does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadPlanFile } from '../matrix/plan-load.js';
import { describeCell } from './commands/matrix.js';
import { memoryIO } from './io.js';
import { main } from './main.js';

async function cli(args: string[]) {
  const io = memoryIO();
  const code = await main(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

test('faultline, faultline engine, faultline kernel without a subcommand: exit 2, the help on stderr', async () => {
  for (const args of [[], ['engine'], ['kernel']]) {
    const r = await cli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /^Usage: faultline/);
    assert.match(r.stderr, /error: a command is needed/);
    assert.equal(r.stdout, '');
  }
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: faultline/);
});

test('probe, matrix, report and kernel help have examples; engine serve help says what it refuses', async () => {
  for (const args of [['probe'], ['matrix'], ['report'], ['kernel'], ['engine', 'serve']]) {
    const r = await cli([...args, '--help']);
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.stdout, /Examples:\n {2}faultline /, args.join(' '));
  }
  const serve = await cli(['engine', 'serve', '--help']);
  assert.match(serve.stdout, /Refused with 400 .*: best_of > 1,\s+min_p other than 0, logit_bias/s);
  assert.match(serve.stdout, /JSON mode/);
});

test('engine generate --model pointing nowhere says the directory does not exist', async () => {
  const r = await cli(['engine', 'generate', '--model', '/nonexistent/model', '--prompt', 'x']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /error: model directory \/nonexistent\/model does not exist/);
});

test('matrix progress names a second launch as the report does ("recheck c003"), not by its raw phase', () => {
  const plan = loadPlanFile(fileURLToPath(new URL('../../test/fixtures/matrix/seed-like.yaml', import.meta.url)));
  const levels = Object.fromEntries(plan.space.names.map((n, i) => [n, plan.space.levels[i][plan.baseline[i]]]));
  const cell = { id: 'c009', phase: 'verify' as const, config: [...plan.baseline], levels, outcome: 'pass' as const, probes: [], recheckOf: 'c003', slot: 0, startedAt: '', durationMs: 1200 };
  assert.match(describeCell({ type: 'cell', cell, reused: false }, plan), /^c009 recheck c003: PASS \[reference levels\] 1\.2 s$/);
});
