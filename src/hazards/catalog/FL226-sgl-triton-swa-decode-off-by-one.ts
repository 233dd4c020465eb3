import { defineHazard } from '../hazard.js';
import { slidingWindowLayers } from '../conditions/model.js';
import { attentionBackend } from '../conditions/sglang/conditions.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #32087 (closed unmerged) (research/field-2026-12.md S3). */
export const FL226 = defineHazard({
  id: 'FL226',
  alias: 'sgl-triton-swa-decode-off-by-one',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: SGLang’s triton backend drops the oldest in-window key at every decode step of a sliding-window model once the sequence passes the window',
  mechanism:
    'An off-by-one in the triton SWA decode window start keeps keys [p−W+1, p] instead of [p−W, p] (e.g. keeps [905, 4999], loses 904).',
  affected: { sglang: 'PR #32087 closed unmerged; whether it was fixed elsewhere is not established' },
  confidence: 'reported',
  conditions: [
    attentionBackend('triton-backend', ['triton'], ['decode'], 'decode runs on the triton attention backend'),
    slidingWindowLayers(),
    sglangOpen('triton SWA decode window off by one'),
  ],
  locateAt: 'triton-backend',
  remedies: [
    {
      id: 'fa3-backend',
      change: { set: { attention_backend: 'fa3' } },
      inferred: true,
      why: 'the off-by-one is in the triton kernel’s window start',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path google/gemma-3-27b-it --attention-backend triton',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-gemma-3-27b-it',
      points: '--attention-backend',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path google/gemma-3-27b-it --attention-backend fa3',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-gemma-3-27b-it',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #32087: Fix Triton SWA decode window dropping the oldest in-window key',
      url: 'https://github.com/sgl-project/sglang/pull/32087',
    },
  ],
  docs: {
    problem:
      'Known from a contributor pull request: Gemma 2/3, Gemma 3n, EXAONE 4 and AFMoE on triton attend one key too few past the window; output drifts slightly.',
    exceptions:
      'Gemma 4 runs on triton by default off Blackwell, so an unset backend on another GPU reaches this path.',
  },
});
