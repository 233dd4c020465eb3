import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL007 } from './FL007-turboquant-kv-specdec-full-cudagraph.js';
import { withArgs, withSubArg, type BuildOptions } from '../testing/deployment-builder.js';
import { assertFiresFully, checkRemedies, fire } from '../testing/remedy-check.js';

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

test('each remedy clears FL007', () => {
  checkRemedies(
    FL007,
    base,
    {
      '--enforce-eager': (o) => withArgs(o, { enforce_eager: true }),
      '-cc.cudagraph_mode=NONE': (o) => withSubArg(o, 'compilation_config', 'cudagraph_mode', 'NONE'),
      'a non-TurboQuant --kv-cache-dtype (auto, fp8)': (o) => withArgs(o, { kv_cache_dtype: 'fp8' }),
      'drop --speculative-config': (o) => withArgs(o, { speculative_config: undefined }),
    },
    {},
  );
});

test('k=1 crashes loudly instead (not this hazard); PIECEWISE clears, FULL_DECODE_ONLY fires', () => {
  assert.equal(fire(FL007, withSubArg(base, 'speculative_config', 'num_speculative_tokens', 1)), undefined);
  assert.equal(fire(FL007, withSubArg(base, 'compilation_config', 'cudagraph_mode', 'PIECEWISE')), undefined);
  assertFiresFully(FL007, withSubArg(base, 'compilation_config', 'cudagraph_mode', 'FULL_DECODE_ONLY'));
});
