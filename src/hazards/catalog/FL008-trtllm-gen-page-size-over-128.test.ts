import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL008 } from './FL008-trtllm-gen-page-size-over-128.js';
import { B200, withArgs, type BuildOptions } from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';
import type { LayerKind } from '../../deployment/deployment.js';

const base: BuildOptions = {
  args: { attention_backend: 'FLASHINFER', block_size: 256 },
  gpu: B200,
  versions: { flashinfer: '0.6.16' },
};

test('--block-size 256 on SM100 trtllm-gen with flashinfer 0.6.16 fires FL008', () => {
  assert.equal(assertFiresFully(FL008, base).location.line, 3);
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
