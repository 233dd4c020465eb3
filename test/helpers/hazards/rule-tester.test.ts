import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL001 } from '../../../src/hazards/catalog/FL001-swa-specdec-bf16q-fp8kv-trtllm.js';
import { defineHazard, type Hazard } from '../../../src/hazards/hazard.js';
import { casesFromData, checkInvalid, checkValid } from './rule-tester.js';

/** FL001 with one field replaced; defineHazard's checks still run. */
const variant = (patch: Partial<Hazard>): Hazard => defineHazard({ ...FL001, ...patch });

test('a remedy whose change does not clear the hazard fails its table test', () => {
  const wrong = variant({ remedies: [{ id: 'eager', change: { add: '--enforce-eager' }, why: 'w' }] });
  const row = casesFromData(wrong).valid.find((c) => c.name.startsWith('remedy eager'));
  assert.ok(row);
  assert.throws(() => checkValid(wrong, row), /must not fire/);
});

test('a non-remedy that does clear the hazard fails its table test', () => {
  const wrong = variant({
    nonRemedies: [{ id: 'no-spec', change: { unset: 'speculative_config' }, why: 'w' }],
  });
  const row = casesFromData(wrong).invalid.find((c) => c.name.startsWith('non-remedy no-spec'));
  assert.ok(row);
  assert.throws(() => checkInvalid(wrong, row));
});

test('a failing example that points at the wrong word fails on its line and column', () => {
  const wrong = variant({
    examples: { ...FL001.examples, failing: { ...FL001.examples.failing, points: '--kv-cache-dtype' } },
  });
  const row = casesFromData(wrong).invalid[0];
  assert.throws(() => checkInvalid(wrong, row), /line/);
});

test('a clean example that fires fails, and so does a non-remedy that avoids it by another condition', () => {
  const dirty = variant({ examples: { ...FL001.examples, clean: FL001.examples.failing } });
  assert.throws(() => checkValid(dirty, casesFromData(dirty).valid[0]), /must not fire/);
  const byOther = variant({
    nonRemedies: [
      { id: 'eager', change: { unset: 'speculative_config' }, avoidsBy: 'sliding-window-layers', why: 'w' },
    ],
  });
  const row = casesFromData(byOther).valid.find((c) => c.name.startsWith('non-remedy eager'));
  assert.ok(row);
  assert.throws(() => checkValid(byOther, row), /only sliding-window-layers/);
});

test('the generated table has one row per example, remedy, non-remedy and stated fact', () => {
  const cases = casesFromData(FL001);
  const facts = ['gpu', 'model', 'vllm', 'flashinfer'].filter((k) => k in FL001.examples.failing).length;
  assert.equal(
    cases.valid.length + cases.invalid.length,
    2 + FL001.remedies.length + FL001.nonRemedies.length + facts,
  );
});
