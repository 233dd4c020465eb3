import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL006 } from './FL006-specdec-pp-no-async-scheduling.js';
import { type BuildOptions } from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

const base: BuildOptions = {
  args: {
    pipeline_parallel_size: 2,
    speculative_config: { method: 'ngram', num_speculative_tokens: 3, prompt_lookup_max: 4 },
    async_scheduling: false,
  },
  env: { VLLM_USE_V2_MODEL_RUNNER: '1' },
};

test('PP 2 + spec decode + --no-async-scheduling on the V2 runner fires FL006 at the async flag', () => {
  assert.equal(assertFiresFully(FL006, base).location.line, 4);
});

test('the V2 runner switch unset is unknown; explicitly off clears it', () => {
  assert.equal(fire(FL006, { ...base, env: {} })?.possibly, true);
  assert.equal(fire(FL006, { ...base, env: { VLLM_USE_V2_MODEL_RUNNER: '0' } }), undefined);
});
