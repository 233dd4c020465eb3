import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../../test/helpers/cli.js';
import { memoryIO } from '../io.js';
import { main } from '../main.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/report/', import.meta.url));

test('faultline report: writes the page, the PNGs and the data; says what it wrote', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-cli-'));
  try {
    const io = memoryIO({ cwd: fixtures });
    const code = await main(
      ['report', 'lint-seed-b200.json', 'probe-fake-corrupt.json', '--html', join(dir, 'r.html'), '--png', join(dir, 'png'), '--data', join(dir, 'r.json'), '--title', 'T'],
      io,
    );
    assert.equal(code, 0, io.stderr());
    assert.match(io.stdout(), /^wrote .*r\.html \(\d+ KB; probe corrupt, lint findings\)\nwrote 2 PNG chart\(s\) to /);
    assert.match(readFileSync(join(dir, 'r.html'), 'utf8'), /^<!DOCTYPE html>/);
    assert.deepEqual(readdirSync(join(dir, 'png')).sort(), ['probe-1-page-offsets.png', 'probe-1-positions.png']);
    const data = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    assert.equal(data.format, 'faultline-report-data');
    assert.equal(data.title, 'T');
    assert.match(data.provenance.command, /^faultline report lint-seed-b200\.json probe-fake-corrupt\.json --html /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('faultline report: bad input is exit 2 with file:line:col and a hint, no stack, no page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-cli-'));
  try {
    writeFileSync(join(dir, 'bad.json'), '{"findings": [], "deployments": 3}\n');
    const r = await runCli(['report', 'bad.json', '--html', 'out.html'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: bad\.json:1:\d+: not a valid lint report: deployments: /);
    assert.match(r.stderr, /\nhint: regenerate it with `faultline lint/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(readdirSync(dir), ['bad.json'], 'nothing written');

    const io = memoryIO({ cwd: dir });
    assert.equal(await main(['report', 'bad.json'], io), 2);
    assert.match(io.stderr(), /report needs --html OUT\.html/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kernel verify --html: the report of exactly the verification it printed; stdout unchanged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-cli-'));
  try {
    const run = async (args: string[]) => {
      const io = memoryIO({ cwd: dir });
      const code = await main(args, io);
      return { code, out: io.stdout(), err: io.stderr() };
    };
    assert.equal((await run(['kernel', 'vectors', '--out', 'v', '--preset', 'kv-dtype-controls'])).code, 0);
    assert.equal((await run(['kernel', 'run-engine', 'v'])).code, 0);
    const plain = await run(['kernel', 'verify', 'v', '--json']);
    const withHtml = await run(['kernel', 'verify', 'v', '--json', '--html', 'k.html']);
    assert.equal(withHtml.code, 1, 'the fault model makes a dump wrong');
    assert.equal(withHtml.out, plain.out, 'stdout is the same JSON');
    assert.equal(withHtml.err, '', 'a quick run on a pipe prints no progress');
    const html = readFileSync(join(dir, 'k.html'), 'utf8');
    assert.match(html, /data-chart="kernel-1-alignment"/);
    assert.match(html, /data-chart="kernel-1-row-head"/);
    assert.match(html, /faultline kernel verify v --tolerance auto --json --html k\.html/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
