import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL004 } from './FL004-xqa-spec-swa-window-start.js';
import {
  B200,
  RTX_PRO_6000,
  gemma4NvfpFacts,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

const base: BuildOptions = {
  args: {
    attention_backend: 'FLASHINFER',
    speculative_config: { method: 'ngram', num_speculative_tokens: 3, prompt_lookup_max: 4 },
  },
  gpu: RTX_PRO_6000,
  modelFacts: { ...gemma4NvfpFacts(), kvDtypeFromCheckpoint: undefined, kvDtypeEvidence: undefined },
  versions: { flashinfer: '0.6.14' },
};

test('SM12x + FlashInfer + SWA + spec verify with flashinfer 0.6.14 fires FL004 (warning)', () => {
  const f = assertFiresFully(FL004, base);
  assert.equal(f.severity, 'warning');
  assert.deepEqual(f.location, { file: 'launch.sh', line: 3, column: 3 }, 'at --speculative-config');
});

test('0.6.16rc1 is before the fix, the v0.6.16 tag after (cherry-pick c46207c23); SM100 is not this path', () => {
  assertFiresFully(FL004, { ...base, versions: { flashinfer: '0.6.16rc1' } });
  assert.equal(fire(FL004, { ...base, versions: { flashinfer: '0.6.16' } }), undefined);
  assert.equal(fire(FL004, { ...base, versions: { flashinfer: '0.6.16.post1' } }), undefined);
  assert.equal(fire(FL004, { ...base, gpu: B200 }), undefined);
  assert.equal(fire(FL004, { ...base, versions: {} })?.possibly, true);
});
