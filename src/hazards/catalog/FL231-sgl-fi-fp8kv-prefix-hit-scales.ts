import { defineHazard } from '../hazard.js';
import { attentionBackend, notDisabled } from '../conditions/sglang/conditions.js';
import { fp8KvCache } from '../conditions/sglang/features.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#19603, PR #18904 / #24198 (both closed) (research/interaction-bugs.md C12, variant 3). */
export const FL231 = defineHazard({
  id: 'FL231',
  alias: 'sgl-fi-fp8kv-prefix-hit-scales',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: SGLang’s FlashInfer backend with an FP8 KV cache drops the k/v scales on a radix-cache prefix hit: the first request is right, follow-ups garble',
  mechanism:
    'The ragged + paged split in forward_extend() called the paged wrapper without k_scale / v_scale when part of the prompt came from the prefix cache.',
  affected: { sglang: 'PR #18904 and PR #24198 closed; status not established' },
  confidence: 'reported',
  conditions: [
    attentionBackend(
      'flashinfer-backend',
      ['flashinfer'],
      ['prefill'],
      'prefill runs on the FlashInfer backend',
    ),
    fp8KvCache(),
    notDisabled(
      'radix-cache',
      'disable_radix_cache',
      'the radix (prefix) cache is on (no --disable-radix-cache)',
    ),
    sglangOpen('FlashInfer FP8 KV scales on prefix hits'),
  ],
  locateAt: 'fp8-kv-cache',
  remedies: [
    {
      id: 'no-radix-cache',
      change: { add: '--disable-radix-cache' },
      why: 'the record’s workaround: no prefix hits',
    },
    {
      id: 'bf16-kv',
      change: { unset: 'kv_cache_dtype' },
      label: 'the default (BF16) KV cache',
      why: 'the record’s other workaround',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.6-27B-FP8 --attention-backend flashinfer --kv-cache-dtype fp8_e4m3',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      points: '--kv-cache-dtype',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.6-27B-FP8 --attention-backend flashinfer',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang#19603 (FP8 KV prefix-hit corruption on FlashInfer)',
      url: 'https://github.com/sgl-project/sglang/issues/19603',
    },
    {
      title: 'sgl-project/sglang PR #24198: pass KV scales to paged attention in ragged+paged split path',
      url: 'https://github.com/sgl-project/sglang/pull/24198',
    },
  ],
  docs: {
    problem:
      'Known from user reports: the first request is answered correctly; follow-ups that reuse its cached prefix come back garbled (Qwen3.6-27B-FP8, SM120).',
  },
});
