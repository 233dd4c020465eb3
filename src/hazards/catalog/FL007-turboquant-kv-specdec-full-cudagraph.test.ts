import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL007 } from './FL007-turboquant-kv-specdec-full-cudagraph.js';
import { withSubArg, type BuildOptions } from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

const base: BuildOptions = {
  args: {
    kv_cache_dtype: 'turboquant_k8v4',
    speculative_config: { method: 'mtp', num_speculative_tokens: 3 },
  },
  versions: { vllm: '0.27.1' },
};

test('TurboQuant KV + MTP k=3 under default CUDA graphs fires FL007 at the kv-cache flag', () => {
  assert.equal(assertFiresFully(FL007, base).location.line, 2);
});

test('k=1 crashes loudly instead (not this hazard); PIECEWISE clears, FULL_DECODE_ONLY fires', () => {
  assert.equal(fire(FL007, withSubArg(base, 'speculative_config', 'num_speculative_tokens', 1)), undefined);
  assert.equal(fire(FL007, withSubArg(base, 'compilation_config', 'cudagraph_mode', 'PIECEWISE')), undefined);
  assertFiresFully(FL007, withSubArg(base, 'compilation_config', 'cudagraph_mode', 'FULL_DECODE_ONLY'));
});
