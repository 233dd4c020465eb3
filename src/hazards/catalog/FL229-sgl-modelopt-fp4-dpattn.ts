import { defineHazard } from '../hazard.js';
import { switchOn } from '../conditions/sglang/conditions.js';
import { nvfp4Checkpoint } from '../conditions/sglang/features.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#9806 (research/field-2026-12.md S6). */
export const FL229 = defineHazard({
  id: 'FL229',
  alias: 'sgl-modelopt-fp4-dpattn',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: an NVFP4 (ModelOpt) DeepSeek-R1 with DP attention on GB200 loses accuracy (GSM8K 0.446 against 0.954); bisected to PR #8616',
  mechanism: 'Not established beyond the bisection to PR #8616.',
  affected: { sglang: 'open; bisected to PR #8616 (Aug 2025)' },
  confidence: 'reproduced',
  confidenceReason:
    'sglang#9806 toggles DP attention on the same NVFP4 checkpoint and GB200 node (GSM8K 0.446 against 0.954) and bisects the drop to PR #8616',
  conditions: [
    nvfp4Checkpoint(),
    switchOn('dp-attention', 'enable_dp_attention', 'DP attention is on (--enable-dp-attention)'),
    sglangOpen('NVFP4 + DP attention accuracy'),
  ],
  locateAt: 'dp-attention',
  remedies: [
    {
      id: 'no-dp-attention',
      change: { unset: 'enable_dp_attention' },
      inferred: true,
      why: 'the report’s accuracy is normal without DP attention',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path nvidia/DeepSeek-R1-0528-FP4 --quantization modelopt_fp4 --tp-size 4 --dp-size 4 --enable-dp-attention',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-r1-fp4',
      points: '--enable-dp-attention',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path nvidia/DeepSeek-R1-0528-FP4 --quantization modelopt_fp4 --tp-size 4',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-r1-fp4',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang#9806: Accuracy drop for nvidia/DeepSeek-R1-0528-FP4 with dp attention',
      url: 'https://github.com/sgl-project/sglang/issues/9806',
    },
  ],
  docs: {
    problem:
      'Known from a user report: GSM8K 0.446 with 54 % invalid answers against 0.954 with DP attention off (TP4/DP4, GB200).',
  },
});
