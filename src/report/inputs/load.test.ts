import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../core/errors.js';
import { loadInput } from './load.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/report/', import.meta.url));
const fixture = (name: string) => join(fixtures, name);
const json = (name: string) => JSON.parse(readFileSync(fixture(name), 'utf8'));

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'faultline-report-input-'));
}

async function rejects(input: string, cwd: string, check: (e: UserError) => void) {
  await assert.rejects(loadInput(input, cwd), (e: unknown) => {
    assert.ok(e instanceof UserError, String(e));
    assert.ok(e.hint, 'every input error carries a hint');
    check(e);
    return true;
  });
}

test('lint JSON: detected by content; hazard ids, severities and remedies carried over', async () => {
  const l = await loadInput(fixture('lint-seed-b200.json'), fixtures);
  assert.equal(l.kind, 'lint');
  if (l.kind !== 'lint') return;
  const raw = json('lint-seed-b200.json');
  assert.deepEqual(l.data.findings.map((f) => f.hazardId), raw.findings.map((f: { hazardId: string }) => f.hazardId));
  const fl001 = l.data.findings.find((f) => f.hazardId === 'FL001')!;
  assert.equal(fl001.severity, 'error');
  assert.match(fl001.location, /^examples\/seed-b200\/serve\.sh:\d+:\d+$/);
  assert.ok(fl001.remedies.length > 0);
  assert.equal(l.data.launches, 1);
  assert.match(l.ref.sha256, /^[0-9a-f]{64}$/);
});

test('kernel JSON: the two maps agree with the characterization the verifier computed itself', async () => {
  const k = await loadInput(fixture('kernel-kv-dtype-controls.json'), fixtures);
  assert.equal(k.kind, 'kernel');
  if (k.kind !== 'kernel') return;
  const ch = json('kernel-kv-dtype-controls.json').characterization as {
    bySeqMinusWindow: { key: number; total: number; failing: number }[];
    bySeqModPage: { key: number; total: number; failing: number }[];
    byRow: { key: number; total: number; failing: number }[];
    byHead: { key: number; total: number; failing: number }[];
  };
  const marginal = <T>(cells: T[], key: (c: T) => number, total: (c: T) => number, failing: (c: T) => number) => {
    const m = new Map<number, { key: number; total: number; failing: number }>();
    for (const c of cells) {
      const b = m.get(key(c)) ?? { key: key(c), total: 0, failing: 0 };
      b.total += total(c);
      b.failing += failing(c);
      m.set(key(c), b);
    }
    return [...m.values()].sort((a, b) => a.key - b.key);
  };
  const d = k.data;
  assert.deepEqual(marginal(d.alignment, (c) => c.sinceWindow, (c) => c.requests, (c) => c.failing), ch.bySeqMinusWindow);
  assert.deepEqual(marginal(d.alignment, (c) => c.seqModPage, (c) => c.requests, (c) => c.failing), ch.bySeqModPage);
  assert.deepEqual(marginal(d.rowHead, (c) => c.row, (c) => c.pairs, (c) => c.failing), ch.byRow);
  assert.deepEqual(marginal(d.rowHead, (c) => c.head, (c) => c.pairs, (c) => c.failing), ch.byHead);
  assert.equal(d.ok, false);
  assert.equal(d.controls[0].name, 'reported trigger');
  assert.ok(d.alignment.some((c) => c.failing > 0) && d.alignment.some((c) => c.failing === 0));
});

test('probe JSON: corrupt tokens binned without loss, bins start past the window, excerpts keep their marks', async () => {
  const p = await loadInput(fixture('probe-fake-corrupt.json'), fixtures);
  assert.equal(p.kind, 'probe');
  if (p.kind !== 'probe') return;
  const raw = json('probe-fake-corrupt.json');
  const d = p.data;
  assert.equal(d.verdict, 'CORRUPT');
  assert.equal(d.window, 48);
  assert.equal(d.corruptTokens.length, raw.tokens.corrupt);
  assert.equal(d.byPosition.reduce((n, b) => n + b.corrupt, 0), d.corruptTokens.length, 'every corrupt token is in a bin');
  assert.equal(d.byPosition.reduce((n, b) => n + b.generated, 0), raw.tokens.judged, 'generated tokens add up to the judged ones');
  assert.ok(d.byPosition.some((b) => b.from === 49), 'a bin starts at window + 1');
  assert.ok(d.byPosition.every((b) => b.to - b.from === d.byPosition[0].to - d.byPosition[0].from));
  assert.equal(d.byPageOffset.length, 16);
  assert.equal(d.byPageOffset.reduce((n, b) => n + b.corrupt, 0), d.corruptTokens.length);
  for (const e of d.examples) {
    const original = raw.examples.find((x: { id: string }) => x.id === e.id).candidate as string;
    assert.equal(e.candidate.map((s) => (s.corrupt ? `⟦${s.text}⟧` : s.text)).join(''), original);
  }
  const counts = d.examples.map((e) => e.corruptTokens);
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), 'worst requests first');
});

test('malformed inputs are UserErrors with a location and a hint', async () => {
  const dir = scratch();
  try {
    writeFileSync(join(dir, 'cut.json'), '{\n  "findings": [\n    {"hazardId": "FL001",\n');
    await rejects('cut.json', dir, (e) => {
      assert.match(e.message, /not valid JSON/);
      assert.equal(e.at?.file, 'cut.json');
      assert.ok(e.at!.line >= 3, JSON.stringify(e.at));
    });

    const kernel = json('kernel-kv-dtype-controls.json');
    kernel.dumps[1].windowLeft = 'sixty-three';
    const text = JSON.stringify(kernel, null, 2);
    writeFileSync(join(dir, 'kernel.json'), text);
    const line = text.split('\n').findIndex((l) => l.includes('"sixty-three"')) + 1;
    await rejects('kernel.json', dir, (e) => {
      assert.match(e.message, /not a valid kernel verify report: dumps\[1\]\.windowLeft/);
      assert.equal(e.at?.line, line);
      assert.match(e.hint!, /kernel verify/);
    });

    writeFileSync(join(dir, 'other.json'), '{"name": "not faultline"}');
    await rejects('other.json', dir, (e) => assert.match(e.message, /cannot tell what other\.json is/));
    writeFileSync(join(dir, 'list.json'), '[1, 2]');
    await rejects('list.json', dir, (e) => assert.match(e.message, /not an object faultline writes/));
    mkdirSync(join(dir, 'empty-dir'));
    await rejects('empty-dir', dir, (e) => assert.match(e.message, /without journal\.jsonl/));
    await rejects('missing.json', dir, (e) => assert.match(e.message, /cannot read missing\.json: ENOENT/));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('probe --out (the full report): judged token counts come from each judgement', async () => {
  const dir = scratch();
  try {
    const summary = json('probe-fake-corrupt.json');
    // the full report's request shape: prompt ids and the judgement instead of promptLength/verdict
    const full = {
      ...summary,
      requests: summary.requests.map((r: { id: string; promptLength: number; maxTokens: number; verdict: string; corruptTokens: unknown[] }, i: number) => ({
        id: r.id,
        index: i,
        promptTokens: Array.from({ length: r.promptLength }, () => 65),
        maxTokens: r.maxTokens,
        judgement: { verdict: r.verdict, reasons: [], notes: [], errors: [], excessRepetition: [], corruptTokens: r.corruptTokens, judgedTokens: i === 0 ? 10 : r.maxTokens },
      })),
    };
    writeFileSync(join(dir, 'full.json'), JSON.stringify(full));
    const p = await loadInput('full.json', dir);
    assert.equal(p.kind, 'probe');
    if (p.kind !== 'probe') return;
    assert.equal(p.data.generatedFrom, 'judged tokens');
    assert.equal(p.data.byPosition.reduce((n, b) => n + b.generated, 0), summary.tokens.judged - (summary.requests[0].maxTokens - 10));
    assert.equal(p.data.corruptTokens.length, summary.tokens.corrupt);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
