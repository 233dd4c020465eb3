import { defineHazard } from '../hazard.js';
import { attentionBackendIs } from '../conditions/backend-is.js';
import { gpuFamily, inFamily } from '../conditions/gpu.js';
import { fp8KvCache } from '../conditions/kv-cache.js';
import { affectedVersion } from '../conditions/versions.js';

/** The vLLM team's FP8 KV-cache study (2026-04-22): FA3 FP8 attention on Hopper lost accuracy at long context. */
export const FL026 = defineHazard({
  id: 'FL026',
  alias: 'fa3-fp8kv-long-context',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'an FP8 KV cache on the FlashAttention 3 backend on Hopper lost accuracy at long context (needle-in-a-haystack 91 % → 13 %) until FA3 switched to two-level accumulation',
  mechanism:
    'With --kv-cache-dtype fp8 vLLM runs the whole attention computation — QK and score·V — in FP8. On Hopper the FA3 ' +
    'kernels accumulated those FP8 products in the Tensor Cores’ reduced-precision FP32 accumulators; over a long context ' +
    'the precision loss grew until long-range retrieval failed. The vLLM team traced it and fixed it with two-level ' +
    'accumulation (described in their FP8 KV-cache study, 2026-04-22).',
  affected: {
    vllm: 'before the two-level accumulation fix (described 2026-04-22); 0.23.1 and later contain it',
  },
  confidence: 'confirmed',
  conditions: [
    gpuFamily(90),
    attentionBackendIs({
      name: 'flash-attn-backend',
      backends: ['FLASH_ATTN'],
      whenUnset: (d) =>
        d.gpu && inFamily(d.gpu.value.sm, 90)
          ? {
              status: 'met',
              detail: 'no backend given: FLASH_ATTN (FA3 on Hopper) is vLLM’s first choice on SM90',
              at: d.gpu.at,
            }
          : { status: 'unknown', detail: 'no backend given, and the GPU is unknown' },
    }),
    fp8KvCache(),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'the FA3 two-level accumulation fix (vLLM FP8 KV-cache study, 2026-04-22)',
      containsFixFrom: {
        version: '0.23.1',
        why: 'the fix was in place when the study was published on 2026-04-22, and 0.23.1 release candidates were nightlies of 2026-07 (vllm#47847)',
      },
      record:
        'fixed by two-level accumulation in the FA3 FP8 path (2026-04); the first release containing it is not established',
    }),
  ],
  locateAt: 'fp8-kv-cache',
  remedies: [
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.23.1' } },
      why: 'a release cut after the two-level accumulation fix',
    },
    {
      id: 'bf16-kv-cache',
      change: { set: { kv_cache_dtype: 'auto' } },
      label: 'drop the FP8 KV cache (--kv-cache-dtype auto, for a checkpoint that declares none)',
      why: 'the regression was in the FP8 attention path; the BF16 baseline was the 91 %',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --max-model-len 131072',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'llama-3.1-8b-instruct',
      vllm: '0.11.0',
      points: '--kv-cache-dtype',
      possibly: true,
    },
    clean: {
      command: 'vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --max-model-len 131072',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'llama-3.1-8b-instruct',
      vllm: '0.23.1',
    },
  },
  references: [
    {
      title:
        'vLLM blog: The State of FP8 KV-Cache and Attention Quantization in vLLM (2026-04-22; vllm-project/vllm-project.github.io PR #195)',
      url: 'https://github.com/vllm-project/vllm-project.github.io/pull/195',
    },
    {
      title:
        'vllm-project/vllm#23813: Accuracy under FA3 in FP8 changes drastically with TP size on very long context length',
      url: 'https://github.com/vllm-project/vllm/issues/23813',
    },
  ],
  docs: {
    problem:
      'On H100/H200 an FP8 KV cache looked fine on short benchmarks but failed long-context retrieval: needle-in-a-haystack ' +
      'fell from 91 % to 13 %. Output stays fluent; the model just cannot find what is far back in the context.',
    exceptions:
      'The study names the fix but not the release that first shipped it, so releases before 0.23.1 are unknown. Short ' +
      'contexts are not affected, which a launch cannot rule out. A report that FA3 FP8 accuracy swings with the TP size at ' +
      'very long context (vllm#23813) is plausibly the same root cause; that is not established.',
  },
});
