import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL003 } from './FL003-trtllm-gen-multitoken-reduction-index.js';
import {
  B200,
  H100,
  withSubArg,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

// Gemma 4 31B, MTP k=5 (q_len_per_req 6), BF16 cache, default batching, FlashInfer 0.6.16.post3 (vLLM's pin).
const base: BuildOptions = {
  model: 'google/gemma-4-31B-it',
  args: {
    attention_backend: 'FLASHINFER',
    speculative_config: {
      method: 'mtp',
      model: 'google/gemma-4-31B-it-assistant',
      num_speculative_tokens: 5,
    },
  },
  gpu: B200,
  versions: { flashinfer: '0.6.16.post3' },
};

test('MTP k=5 on trtllm-gen with batching and flashinfer 0.6.16.post3 fires FL003', () => {
  const f = assertFiresFully(FL003, base);
  assert.equal(f.location.line, 3);
});

test('version bounds: 0.6.17 affected, 0.6.18rc1 affected, 0.6.18 fixed, 0.6.12 not established, unknown is possibly', () => {
  assertFiresFully(FL003, { ...base, versions: { flashinfer: '0.6.17' } });
  assertFiresFully(FL003, { ...base, versions: { flashinfer: '0.6.18rc1' } });
  assert.equal(fire(FL003, { ...base, versions: { flashinfer: '0.6.18' } }), undefined);
  assert.equal(fire(FL003, { ...base, versions: { flashinfer: '0.6.12' } })?.possibly, true);
  const unknown = fire(FL003, { ...base, versions: {} });
  assert.equal(unknown?.possibly, true);
  assert.match(unknown?.message ?? '', /flashinfer-version \(flashinfer-python version not given/);
});

test('k=4 (q_len 5) fires; H100 does not', () => {
  assertFiresFully(FL003, withSubArg(base, 'speculative_config', 'num_speculative_tokens', 4));
  assert.equal(fire(FL003, { ...base, gpu: H100 }), undefined);
});
