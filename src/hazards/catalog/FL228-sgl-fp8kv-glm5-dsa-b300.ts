import { defineHazard } from '../hazard.js';
import { gpuFamily } from '../conditions/gpu.js';
import { fp8KvCache } from '../conditions/sglang/features.js';
import { modelIs } from '../conditions/sglang/model.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#22671, sgl-cookbook PR #237 (research/field-2026-12.md S5). */
export const FL228 = defineHazard({
  id: 'FL228',
  alias: 'sgl-fp8kv-glm5-dsa-b300',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: an FP8 KV cache on GLM-5.1-FP8 (sparse attention) on B300 drops accuracy sharply (AIME26 76.7 against 95.3 with BF16 KV)',
  mechanism:
    'The checkpoints carry no calibrated KV scales, so the FP8 cache runs at unit scales; the maintainers removed the flag from their recipes (sgl-cookbook PR #237).',
  affected: { sglang: 'open (issue closed; mitigated in the recipes only)' },
  confidence: 'reproduced',
  confidenceReason:
    'sglang#22671 changes only the KV dtype on the same checkpoint and B300 node: AIME26 76.7 and GPQA-D 71.2 with FP8 E4M3 KV against 95.3 and 86.2 with BF16 KV; the maintainers removed the flag from the recipes (sgl-cookbook PR #237)',
  conditions: [
    fp8KvCache(),
    modelIs('glm5-model', 'a GLM-5 model (MLA with DeepSeek sparse attention)', {
      architectures: ['GlmMoeDsaForCausalLM'],
      modelTypes: ['glm_moe_dsa'],
      namePattern: /glm-?5/i,
    }),
    gpuFamily(100),
    sglangOpen('FP8 KV on GLM-5.1-FP8'),
  ],
  locateAt: 'fp8-kv-cache',
  remedies: [
    {
      id: 'bf16-kv',
      change: { unset: 'kv_cache_dtype' },
      label: 'the default (BF16) KV cache',
      why: 'the record: BF16 KV is normal',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path zai-org/GLM-5.1-FP8 --tp-size 8 --kv-cache-dtype fp8_e4m3',
      gpu: 'NVIDIA B300 SXM6 AC',
      model: 'sgl-glm-5.1-fp8',
      points: '--kv-cache-dtype',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path zai-org/GLM-5.1-FP8 --tp-size 8',
      gpu: 'NVIDIA B300 SXM6 AC',
      model: 'sgl-glm-5.1-fp8',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang#22671: Severe Accuracy Degradation with FP8_E4M3 KVCache on GLM-5.1-FP8',
      url: 'https://github.com/sgl-project/sglang/issues/22671',
    },
  ],
  docs: {
    problem:
      'Known from a user report: GLM-5.1-FP8 with an FP8 KV cache on B300 scores 76.7 on AIME26 (95.3 with BF16 KV) and 71.2 on GPQA-D (86.2).',
  },
});
