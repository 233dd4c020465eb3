import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL005 } from './FL005-specdec-async-scheduling-garbage.js';
import { withArgs, withSubArg, type BuildOptions } from '../testing/deployment-builder.js';
import { assertFiresFully, checkRemedies, fire } from '../testing/remedy-check.js';

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

test('each remedy clears FL005; the reported non-remedies do not', () => {
  checkRemedies(
    FL005,
    base,
    {
      '--no-async-scheduling': (o) => withArgs(o, { async_scheduling: false }),
      'drop --speculative-config': (o) => withArgs(o, { speculative_config: undefined }),
    },
    {
      '--enforce-eager': { edit: (o) => withArgs(o, { enforce_eager: true }), expect: 'fires' },
      '--no-enable-prefix-caching': {
        edit: (o) => withArgs(o, { enable_prefix_caching: false }),
        expect: 'fires',
      },
      'switching MTP ↔ DFlash': {
        edit: (o) => withSubArg(o, 'speculative_config', 'method', 'dflash'),
        expect: 'fires',
      },
      'an FP8 instead of an FP4 checkpoint (or back)': {
        edit: (o) => ({ ...o, model: 'XiaomiMiMo/MiMo-V2.5-Pro-FP8' }),
        expect: 'fires',
      },
    },
  );
});

test('async scheduling unset is unknown (default depends on the release); ngram is not among the reported drafters', () => {
  const f = fire(FL005, withArgs(base, { async_scheduling: undefined }));
  assert.equal(f?.possibly, true);
  assert.equal(fire(FL005, withSubArg(base, 'speculative_config', 'method', 'ngram')), undefined);
  assertFiresFully(FL005, withSubArg(base, 'speculative_config', 'method', 'deepseek_mtp'));
});
