import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadTable, stampFromHead, tableFor, tableLines } from './flag-table.js';

test('every table names SGLang’s commit, its date, the generator, and has the core flags', () => {
  for (const line of [...tableLines(), 'main']) {
    const t = loadTable(line);
    assert.match(t.source.commit, /^[0-9a-f]{40}$/, line);
    assert.equal(t.source.upstream, 'sgl-project/sglang');
    assert.equal(t.generator, 'scripts/sglang-flags/extract_sglang_flags.py');
    // the field each flag sets (argparse's dest, or the ServerArgs field it is renamed to)
    const dests = new Set(t.flags.map((f) => f.field ?? f.dest));
    for (const d of [
      'model_path',
      'tp_size',
      'kv_cache_dtype',
      'attention_backend',
      'disable_radix_cache',
    ])
      assert.ok(dests.has(d), `${line}: ${d}`);
    if (line !== 'main') assert.equal(t.sglangVersion?.startsWith(line), true, line);
  }
  assert.ok(tableLines().length >= 10);
});

test('a version picks its release line, else the nearest older line, else main — and says which', () => {
  assert.equal(tableFor('0.5.6.post2').table.source.commit.slice(0, 9), '5c8bd8b51');
  assert.equal(tableFor('0.5.6').table.sglangVersion, '0.5.6.post2');
  const rc = tableFor('0.5.0rc2');
  assert.equal(rc.table.sglangVersion, '0.4.10.post2');
  assert.match(rc.why, /no table for 0\.5\.0: the nearest older release line/);
  assert.equal(tableFor(undefined).table.sglangVersion, null);
  assert.match(tableFor(undefined).why, /SGLang version unknown: flags of SGLang main/);
  assert.equal(tableFor('0.5.9').table.sglangVersion, '0.5.9');
  assert.equal(tableFor('0.5.9').authoritative, true);
  assert.match(tableFor('0.5.21').why, /newer than the newest release table/);
  assert.equal(tableFor('0.5.21').table.sglangVersion, null);
  assert.match(tableFor('0.3.6').why, /older than the oldest release table/);
  assert.match(tableFor('banana').why, /"banana" is not a version/);
});

test('the stamp read from a table file’s head is the release and date the whole file says', () => {
  for (const line of [...tableLines(), 'main']) {
    const whole = JSON.parse(readFileSync(new URL(`../../../../data/sglang-flags/${line}.json`, import.meta.url), 'utf8'));
    assert.deepEqual(stampFromHead(line), { sglangVersion: whole.sglangVersion, date: whole.source.date }, line);
  }
});
