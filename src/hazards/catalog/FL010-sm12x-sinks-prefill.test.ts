import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL010 } from './FL010-sm12x-sinks-prefill.js';
import {
  H100,
  RTX_PRO_6000,
  withArgs,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { fire } from '../../../test/helpers/hazards/fire.js';
import type { LayerKind } from '../../deployment/deployment.js';

const gptOss = {
  source: 'config.json',
  modelType: 'gpt_oss',
  layers: Array.from({ length: 24 }, (_, i): LayerKind => (i % 2 ? 'full' : 'sliding')),
  window: 128,
  notes: [],
};
const base: BuildOptions = {
  model: 'openai/gpt-oss-20b',
  args: { attention_backend: 'FLASHINFER' },
  gpu: RTX_PRO_6000,
  modelFacts: gptOss,
};

test('gpt-oss on FlashInfer on SM12x is possibly affected: the affected builds are known only by PR', () => {
  const f = fire(FL010, base);
  assert.ok(f);
  assert.equal(f.possibly, true);
  assert.deepEqual(
    f.conditions.filter((c) => c.status !== 'met').map((c) => c.name),
    ['vllm-version'],
  );
  assert.equal(f.location.line, 2);
  assert.equal(fire(FL010, { ...base, versions: { vllm: '0.27.1' } })?.possibly, true);
});

test('other GPUs and non-sink models are not affected; no backend given is possibly affected', () => {
  assert.equal(fire(FL010, { ...base, gpu: H100 }), undefined);
  assert.equal(fire(FL010, { ...base, modelFacts: { ...gptOss, modelType: 'gemma3_text' } }), undefined);
  assert.equal(
    fire(FL010, withArgs(base, { attention_backend: undefined }))?.possibly,
    true,
    'auto may pick FlashInfer for sinks',
  );
});
