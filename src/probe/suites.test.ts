import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUserError } from '../core/errors.js';
import { parsePromptFile, shortPlan, TOKENS_PAST_WINDOW, windowCrossingPlan } from './suites.js';

const shape = { window: 128, pageSize: 16, requests: 32, maxTokens: 64, seed: 1 };

test('window-crossing: lengths from window/2 to 8×window, every request ends past the window', () => {
  const plan = windowCrossingPlan(shape);
  assert.equal(plan.length, 32);
  const lengths = plan.map((p) => p.length);
  assert.ok(
    Math.min(...lengths) >= 64 && Math.max(...lengths) <= 1024,
    `${Math.min(...lengths)}..${Math.max(...lengths)}`,
  );
  assert.ok(Math.max(...lengths) > 800, 'reaches toward 8×window');
  for (const p of plan)
    assert.ok(
      p.length + p.maxTokens - 1 >= 128 + TOKENS_PAST_WINDOW - 1,
      `${p.id} ends at ${p.length + p.maxTokens - 1}`,
    );
  assert.ok(plan.every((p) => p.maxTokens >= 64));
});

test('window-crossing: prompts shorter than the window come first (margin calibration)', () => {
  const lengths = windowCrossingPlan(shape).map((p) => p.length);
  const firstLong = lengths.findIndex((l) => l >= 128);
  assert.ok(firstLong > 0);
  assert.ok(lengths.slice(firstLong).every((l) => l >= 128));
});

test('window-crossing: the alignment sweep covers every residue mod the page size', () => {
  const residues = new Set(windowCrossingPlan(shape).map((p) => p.length % 16));
  assert.equal(residues.size, 16);
});

test('suites are seeded: same seed same order, another seed another order', () => {
  assert.deepEqual(windowCrossingPlan(shape), windowCrossingPlan(shape));
  assert.notDeepEqual(
    windowCrossingPlan(shape).map((p) => p.id),
    windowCrossingPlan({ ...shape, seed: 2 }).map((p) => p.id),
  );
});

test('window-crossing respects max_model_len, or says why it cannot', () => {
  const plan = windowCrossingPlan({ ...shape, maxModelLen: 600 });
  assert.ok(
    plan.every((p) => p.length + p.maxTokens + 1 <= 600),
    'room for the scoring request',
  );
  assert.throws(
    () => windowCrossingPlan({ ...shape, maxModelLen: 100 }),
    (e) => isUserError(e) && /max_model_len 100/.test(e.message),
  );
});

test('short: every generated position stays below the window', () => {
  const plan = shortPlan(shape);
  for (const p of plan) assert.ok(p.length + p.maxTokens - 1 < 128, `${p.id}`);
  assert.ok(plan.every((p) => p.length >= 16 && p.length <= 64));
});

test('bad shapes are usage errors', () => {
  assert.throws(() => windowCrossingPlan({ ...shape, window: 0 }), isUserError);
  assert.throws(() => shortPlan({ ...shape, requests: 0 }), isUserError);
});

test('prompt files: text or ids, per-line max_tokens, errors with file:line:col', () => {
  const ok = parsePromptFile(
    '{"prompt": "hello"}\n\n{"prompt": [1, 2, 3], "max_tokens": 5, "id": "ids"}\n',
    'p.jsonl',
    32,
  );
  assert.deepEqual(ok, [
    { id: 'line-1', text: 'hello', maxTokens: 32 },
    { id: 'ids', tokens: [1, 2, 3], maxTokens: 5 },
  ]);
  const bad = (content: string) => {
    try {
      parsePromptFile(content, 'p.jsonl', 32);
    } catch (e) {
      if (isUserError(e)) return e;
    }
    assert.fail('expected a UserError');
  };
  assert.deepEqual(bad('{"prompt": "a"}\n{"prompt": 3}').at, { file: 'p.jsonl', line: 2, column: 2 });
  assert.equal(bad('{"prompt": "a"}\n{"prompt": "b", "max_tokens": -1}').at?.column, 17);
  assert.equal(bad('{"prompt": "a",}').at?.line, 1);
  assert.match(bad('\n\n').message, /no prompts/);
});
