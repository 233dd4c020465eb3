import { defineHazard } from '../hazard.js';
import { slidingWindowLayers } from '../conditions/model.js';
import { attentionBackend, speculative } from '../conditions/sglang/conditions.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #35208 (open), PR #39160 (closed) (research/interaction-bugs.md C2). */
export const FL220 = defineHazard({
  id: 'FL220',
  alias: 'sgl-fi-spec-verify-swa-window',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: speculative verification (EAGLE, DFLASH) of a sliding-window model on SGLang’s FlashInfer backend attends the wrong keys once the context passes the window',
  mechanism:
    'DFLASH verify: the window is compiled out and the whole draft block shares one left bound anchored at the block start. EAGLE verify: the tree-mask builder clips SWA prefix lengths but still gathers KV from offset zero with a mask laid out for the full prefix.',
  affected: { sglang: 'open: PR #35208 (DFLASH) not merged, PR #39160 (EAGLE) closed' },
  confidence: 'reported',
  conditions: [
    attentionBackend(
      'flashinfer-backend',
      ['flashinfer'],
      ['decode'],
      'decode (and so speculative verify) runs on the FlashInfer backend',
    ),
    slidingWindowLayers(),
    speculative(['EAGLE', 'EAGLE3', 'DFLASH']),
    sglangOpen('FlashInfer spec verify ignores the sliding window'),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative',
      change: { unset: 'speculative_algorithm' },
      why: 'the record’s workaround for SWA models on FlashInfer',
    },
    {
      id: 'fa3-backend',
      change: { set: { attention_backend: 'fa3' } },
      why: 'the record’s other workaround: another backend',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path google/gemma-3-27b-it --attention-backend flashinfer --speculative-algorithm EAGLE3 --speculative-draft-model-path org/gemma-3-eagle3',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-gemma-3-27b-it',
      points: '--speculative-algorithm',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path google/gemma-3-27b-it --attention-backend flashinfer',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-gemma-3-27b-it',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #35208: Pass window_left at plan time for DFlash verify',
      url: 'https://github.com/sgl-project/sglang/pull/35208',
    },
    {
      title: 'sgl-project/sglang PR #39160: Fix FlashInfer EAGLE verification with sliding-window attention',
      url: 'https://github.com/sgl-project/sglang/pull/39160',
    },
  ],
  docs: {
    problem:
      'Known from contributor pull requests with regression tests, not from a merged fix: speculative decoding of Gemma-style models on FlashInfer drifts once a conversation passes the window.',
  },
});
