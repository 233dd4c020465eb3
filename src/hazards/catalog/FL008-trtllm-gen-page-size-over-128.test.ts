import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL008 } from './FL008-trtllm-gen-page-size-over-128.js';
import { B200, withArgs, withSubArg, type BuildOptions } from '../testing/deployment-builder.js';
import { assertFiresFully, checkRemedies, fire } from '../testing/remedy-check.js';
import type { LayerKind } from '../../deployment/deployment.js';

const base: BuildOptions = {
  args: { attention_backend: 'FLASHINFER', block_size: 256 },
  gpu: B200,
  versions: { flashinfer: '0.6.16' },
};

test('--block-size 256 on SM100 trtllm-gen with flashinfer 0.6.16 fires FL008', () => {
  assert.equal(assertFiresFully(FL008, base).location.line, 3);
});

test('each remedy clears FL008', () => {
  checkRemedies(
    FL008,
    base,
    {
      '--block-size 128 or smaller': (o) => withArgs(o, { block_size: 128 }),
      'attention_config.use_trtllm_attention=false': (o) =>
        withSubArg(o, 'attention_config', 'use_trtllm_attention', false),
      '--attention-backend TRITON_ATTN': (o) => withArgs(o, { attention_backend: 'TRITON_ATTN' }),
    },
    {},
  );
});

test('versions after the last report are unknown (fix release not established); hybrid models without --block-size are unknown', () => {
  assert.equal(fire(FL008, { ...base, versions: { flashinfer: '0.6.18' } })?.possibly, true);
  assert.equal(fire(FL008, { ...base, versions: {} })?.possibly, true);
  const hybrid: LayerKind[] = ['linear', 'linear', 'linear', 'full'];
  const f = fire(FL008, {
    ...withArgs(base, { block_size: undefined }),
    modelFacts: { source: 'config.json', layers: hybrid, notes: [] },
  });
  assert.equal(f?.possibly, true);
  assert.equal(
    fire(FL008, {
      ...withArgs(base, { block_size: undefined }),
      modelFacts: { source: 'c', layers: ['full'], notes: [] },
    }),
    undefined,
  );
});
