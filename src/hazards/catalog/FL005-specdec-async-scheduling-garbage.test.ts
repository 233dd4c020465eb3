import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL005 } from './FL005-specdec-async-scheduling-garbage.js';
import { withArgs, withSubArg, type BuildOptions } from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

const base: BuildOptions = {
  model: 'XiaomiMiMo/MiMo-V2.5-Pro',
  args: {
    tensor_parallel_size: 8,
    speculative_config: { method: 'mtp', num_speculative_tokens: 7 },
    async_scheduling: true,
  },
};

test('MTP + async scheduling + batching fires FL005 at the async flag', () => {
  const f = assertFiresFully(FL005, base);
  assert.equal(f.location.line, 4);
});

test('async scheduling unset is unknown (default depends on the release); ngram is not among the reported drafters', () => {
  const f = fire(FL005, withArgs(base, { async_scheduling: undefined }));
  assert.equal(f?.possibly, true);
  assert.equal(fire(FL005, withSubArg(base, 'speculative_config', 'method', 'ngram')), undefined);
  assertFiresFully(FL005, withSubArg(base, 'speculative_config', 'method', 'deepseek_mtp'));
});
