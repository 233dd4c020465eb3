import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isUserError } from '../core/errors.js';
import {
  generationOf,
  loadRecording,
  recordExchange,
  RECORDING_FORMAT,
  saveRecording,
  type Recording,
} from './recording.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-golden-'));
const gen = {
  tokens: [5, 6],
  steps: [
    { token: 5, logprob: -0.1, top: [{ token: 5, logprob: -0.1 }] },
    {
      token: 6,
      logprob: -0.5,
      top: [
        { token: 6, logprob: -0.5 },
        { token: 7, logprob: -1 },
      ],
    },
  ],
  finishReason: 'length',
};

test('a golden round-trips through its file', () => {
  const rec: Recording = {
    format: RECORDING_FORMAT,
    version: 1,
    model: 'm',
    server: 'http://127.0.0.1:1',
    suite: 'short',
    window: 128,
    pageSize: 16,
    logprobs: 5,
    seed: 0,
    exchanges: [
      recordExchange('a', [256, 1], 2, { ok: true, value: gen }),
      recordExchange('b', [256, 2], 2, { ok: false, error: 'HTTP 500' }),
    ],
  };
  const path = join(dir, 'g.json');
  saveRecording(path, rec);
  const back = loadRecording(path);
  assert.deepEqual(back, rec);
  assert.deepEqual(generationOf(back.exchanges[0]), gen);
  assert.equal(generationOf(back.exchanges[1]), undefined);
});

test('files that are not goldens are usage errors that say what is wrong', () => {
  const p = join(dir, 'bad.json');
  writeFileSync(p, '{"format": "something-else"}');
  assert.throws(
    () => loadRecording(p),
    (e) => isUserError(e) && /format/.test(e.message) && e.at?.file === p,
  );
  writeFileSync(p, '{not json');
  assert.throws(
    () => loadRecording(p),
    (e) => isUserError(e) && /not valid JSON/.test(e.message),
  );
  assert.throws(
    () => loadRecording(join(dir, 'missing.json')),
    (e) => isUserError(e) && /cannot read/.test(e.message),
  );
});
