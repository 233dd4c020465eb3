import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DECISIVE_RULE, requestEvidence, type EvidenceInput } from './evidence.js';
import { findRepeatedSpans } from './repetition.js';

const corrupt = (tokens: EvidenceInput['corruptTokens'], margin = 1, loopAt?: number): EvidenceInput => ({
  corrupt: true,
  margin,
  corruptTokens: tokens,
  excessRepetition:
    loopAt === undefined
      ? []
      : findRepeatedSpans([
          ...Array<number>(loopAt)
            .fill(0)
            .map((_, i) => 100 + i),
          5,
          6,
          5,
          6,
          5,
          6,
        ]),
});

test('not corrupt: no evidence, whatever the tokens', () => {
  assert.deepEqual(
    requestEvidence({ ...corrupt([{ index: 0, class: 'implausible', gap: 9 }]), corrupt: false }),
    { strength: 'none' },
  );
});

test('gap rule: at least 4 nat and at least 3 margins, from the largest gap of the request', () => {
  assert.equal(requestEvidence(corrupt([{ index: 2, class: 'suspicious', gap: 3.99 }])).strength, 'weak');
  const d = requestEvidence(
    corrupt([
      { index: 2, class: 'suspicious', gap: 1.2 },
      { index: 9, class: 'suspicious', gap: 4 },
    ]),
  );
  assert.equal(d.strength, 'decisive');
  assert.equal(d.worstGap, 4);
  assert.match(d.reason!, /index 9 trails .* 4\.00 nat ≥ max\(4 nat, 3 × margin 1\.00\)/);
  // a noisy pair (margin 1.9) needs 5.7 nat
  assert.equal(requestEvidence(corrupt([{ index: 2, class: 'suspicious', gap: 5.5 }], 1.9)).strength, 'weak');
  assert.equal(
    requestEvidence(corrupt([{ index: 2, class: 'suspicious', gap: 5.7 }], 1.9)).strength,
    'decisive',
  );
  // a corrupt request without a gap (different lengths) stays weak
  assert.equal(requestEvidence(corrupt([{ index: 2, class: 'first-divergence' }])).strength, 'weak');
});

test('two implausible tokens decide; one does not', () => {
  const one = { index: 3, class: 'implausible', gap: 2.5 };
  assert.equal(requestEvidence(corrupt([one])).strength, 'weak');
  const two = requestEvidence(corrupt([one, { index: 20, class: 'implausible', gap: 2.2 }]));
  assert.equal(two.strength, 'decisive');
  assert.match(two.reason!, /2 implausible tokens \(generated indices 3, 20\)/);
  assert.equal(DEFAULT_DECISIVE_RULE.implausibleTokens, 2);
});

test('an implausible token followed by a loop the reference lacks decides; a loop before it does not', () => {
  const implausible = { index: 3, class: 'implausible', gap: 2.5 };
  const after = requestEvidence(corrupt([implausible], 1, 4));
  assert.equal(after.strength, 'decisive');
  assert.match(after.reason!, /then a 2-token loop ×3/);
  const late = { index: 40, class: 'implausible', gap: 2.5 };
  assert.equal(requestEvidence(corrupt([late], 1, 4)).strength, 'weak');
  // a loop after a merely suspicious token is not enough
  assert.equal(
    requestEvidence(corrupt([{ index: 3, class: 'suspicious', gap: 2.5 }], 1, 4)).strength,
    'weak',
  );
});
