import { defineHazard } from '../hazard.js';
import { attentionBackendIs } from '../conditions/backend-is.js';
import { concurrentRequests } from '../conditions/concurrency.js';
import { gpuExactly } from '../conditions/gpu-exact.js';
import { cascadeAttention } from '../conditions/serving-features.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#22103: cascade attention accuracy issue on A100. */
export const FL027 = defineHazard({
  id: 'FL027',
  alias: 'cascade-attention-a100',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'V1 cascade attention on an A100 (FlashAttention) gave wrong answers for batches of requests sharing a long prefix; --disable-cascade-attn restores them',
  mechanism:
    'Not root-caused. vLLM switches to cascade attention by a heuristic when many requests in a batch share a long ' +
    'prefix; on A100 (FlashAttention 2 path) that batch lost correctness, on H100 it did not. A community comment points ' +
    'at a vllm-project/flash-attention patch as a possible fix.',
  affected: { vllm: 'reported Aug 2025; open, not root-caused' },
  confidence: 'reported',
  conditions: [
    gpuExactly({ name: 'gpu-a100', sm: 80, label: 'A100 (compute capability 8.0)', cleanOn: 'H100' }),
    attentionBackendIs({
      name: 'flash-attn-backend',
      backends: ['FLASH_ATTN'],
      whenUnset: () => ({
        status: 'met',
        detail: 'no backend given: FLASH_ATTN is vLLM’s first choice outside SM100',
        byDefault: true,
      }),
    }),
    cascadeAttention(),
    concurrentRequests(),
    affectedVersion({ pkg: 'vllm', record: 'open since Aug 2025; not root-caused' }),
  ],
  locateAt: 'flash-attn-backend',
  remedies: [
    {
      id: 'disable-cascade-attn',
      change: { add: '--disable-cascade-attn' },
      why: 'the workaround on the record: 18/18 correct again (the flag exists "when potential numerical issues are concerned")',
    },
  ],
  nonRemedies: [
    { id: 'enforce-eager', change: { add: '--enforce-eager' }, why: 'the report ran in eager mode' },
  ],
  examples: {
    failing: {
      command: 'vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASH_ATTN --max-num-seqs 16',
      gpu: 'NVIDIA A100-SXM4-80GB',
      points: '--attention-backend',
    },
    clean: {
      command:
        'vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASH_ATTN --max-num-seqs 16 --disable-cascade-attn',
      gpu: 'NVIDIA A100-SXM4-80GB',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm#22103: Cascade Attention Accuracy Issue on A100',
      url: 'https://github.com/vllm-project/vllm/issues/22103',
    },
    {
      title: 'vllm-project/vllm PR #15243: Add flag to disable cascade attention',
      url: 'https://github.com/vllm-project/vllm/pull/15243',
    },
    {
      title: 'allenai/open-instruct PR #1006: Disables cascade attention (vllm#17652)',
      url: 'https://github.com/allenai/open-instruct/pull/1006',
    },
  ],
  docs: {
    problem:
      'Batched repeated prompts (32 of one, 18 of another) on an A100 with Llama 3 scored 10/18 instead of 18/18; the same ' +
      'run on H100, or with cascade attention disabled, was fully correct. An RL trainer disables cascade attention for a ' +
      'similar batch-size-dependent degradation on Qwen3-30B-A3B (vllm#17652).',
    exceptions:
      'Other Ampere and Ada GPUs are unknown. Cascade attention runs only for batches with a long shared prefix, which the ' +
      'launch cannot show.',
  },
});
