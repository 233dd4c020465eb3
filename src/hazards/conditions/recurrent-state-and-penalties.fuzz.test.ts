/**
 * Property: the conditions FL013 and FL014 added never throw and always answer a status with a detail,
 * whatever JSON-typed values arrive for the arguments they read — which the catalog-wide fuzz test
 * (evaluate.fuzz.test.ts) does not generate: generation_config, override_generation_config,
 * enable_prefix_caching, mamba_cache_mode.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LayerKind } from '../../deployment/deployment.js';
import { buildDeployment } from '../../../test/helpers/hazards/deployment-builder.js';
import { draftFreeStepsProposer } from './draft-free-steps.js';
import { hybridRecurrentModel, mambaCacheModeNone } from './hybrid-recurrent.js';
import { samplingPenalties } from './sampling-penalties.js';

const scalar = fc.oneof(
  fc.constantFrom(
    'auto',
    'vllm',
    'none',
    'align',
    'ngram',
    'true',
    'false',
    '1.05',
    '{"repetition_penalty":2}',
    '',
  ),
  fc.boolean(),
  fc.double(),
  fc.constant(null),
  fc.string({ maxLength: 6 }),
);
const value = fc.oneof(
  scalar,
  fc.dictionary(
    fc.constantFrom('repetition_penalty', 'frequency_penalty', 'presence_penalty', 'method', 'temperature'),
    scalar,
    { maxKeys: 3 },
  ),
  fc.array(scalar, { maxLength: 3 }),
);
const dests = [
  'generation_config',
  'override_generation_config',
  'enable_prefix_caching',
  'mamba_cache_mode',
  'speculative_config',
];
const conditions = [
  samplingPenalties(),
  hybridRecurrentModel(),
  mambaCacheModeNone(),
  draftFreeStepsProposer(),
];

test('the new conditions answer met / not-met / unknown with a detail for any argument values', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom(...dests), value, { maxKeys: 5 }),
      fc.option(fc.array(fc.constantFrom<LayerKind>('full', 'sliding', 'linear'), { maxLength: 6 }), {
        nil: undefined,
      }),
      (args, layers) => {
        const d = buildDeployment({
          args,
          ...(layers ? { modelFacts: { source: 'config.json', layers, notes: [] } } : {}),
        });
        for (const c of conditions) {
          const r = c.check(d);
          assert.ok(['met', 'not-met', 'unknown'].includes(r.status), c.name);
          assert.ok(r.detail.length > 0, c.name);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('sampling-penalties is never not-met: requests can always set penalties', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom(...dests), value, { maxKeys: 5 }), (args) => {
      assert.notEqual(samplingPenalties().check(buildDeployment({ args })).status, 'not-met');
    }),
    { numRuns: 200 },
  );
});
