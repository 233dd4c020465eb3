import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../core/errors.js';
import { parsePlantedFaults, plantedFaultsText, plantedKeep, plantedToken } from './planted-faults.js';

test('planted faults parse from --planted-fault, and anything else is a usage error with the forms', () => {
  assert.deepEqual(parsePlantedFaults('wrong-token:8:160, stale-prefix:16'), {
    wrongToken: { every: 8, from: 160 },
    stalePrefix: { block: 16 },
  });
  assert.equal(
    plantedFaultsText(parsePlantedFaults('stale-prefix:4')),
    'PLANTED FAULTS: stale-prefix block 4',
  );
  assert.equal(plantedFaultsText({}), '');
  for (const bad of ['wrong-token:0:10', 'wrong-token:8', 'stale-prefix:x', 'bit-flip:3'])
    assert.throws(
      () => parsePlantedFaults(bad),
      (e: unknown) =>
        e instanceof UserError && e.message.includes(bad) && /wrong-token:EVERY:FROM/.test(e.hint ?? ''),
    );
});

test('wrong-token replaces every k-th generated token past the position with the second-best, and nothing before', () => {
  const f = parsePlantedFaults('wrong-token:3:100');
  const row = Float32Array.from([0.1, 5, 2, 4]);
  assert.equal(plantedToken(f, row, 1, 99, 2), 1, 'before the position: untouched');
  assert.equal(plantedToken(f, row, 1, 100, 0), 1);
  assert.equal(plantedToken(f, row, 1, 102, 2), 3, 'the third token: the second-best');
  assert.equal(plantedToken({}, row, 1, 500, 2), 1, 'no fault, no change');
});

test('stale-prefix keeps a block past the true shared prefix, within the cache and the prompt', () => {
  const f = parsePlantedFaults('stale-prefix:16');
  assert.equal(plantedKeep(f, 40, 300, 200), 56);
  assert.equal(plantedKeep(f, 40, 50, 200), 50, 'no further than the cache holds');
  assert.equal(plantedKeep(f, 40, 300, 45), 44, 'never the whole prompt');
  assert.equal(plantedKeep(f, 0, 300, 200), 0, 'no shared prefix: nothing reused');
  assert.equal(plantedKeep({}, 40, 300, 200), 40);
});
