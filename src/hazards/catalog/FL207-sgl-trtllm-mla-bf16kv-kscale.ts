import { defineHazard } from '../hazard.js';
import { attentionBackend } from '../conditions/sglang/conditions.js';
import { checkpointKvScales, notFp8KvCache } from '../conditions/sglang/features.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #18396 (research/interaction-bugs.md C12, variant 1). */
export const FL207 = defineHazard({
  id: 'FL207',
  alias: 'sgl-trtllm-mla-bf16kv-kscale',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'SGLang’s trtllm_mla backend with a BF16 KV cache applies the checkpoint’s k_scale anyway: attention scores shrink ~16×, output degenerates',
  mechanism:
    'Per-layer k_scale/v_scale were loaded from an FP8 checkpoint regardless of the KV dtype and trtllm_mla multiplied k_scale into BMM1 even for a BF16 cache (k_scale 0.06 → scores ~16× too small).',
  affected: { sglang: 'releases before PR #18396 (merged Feb 2026)' },
  confidence: 'confirmed',
  conditions: [
    attentionBackend(
      'trtllm-mla-backend',
      ['trtllm_mla'],
      ['decode'],
      'decode runs on the trtllm_mla backend',
    ),
    notFp8KvCache(),
    checkpointKvScales(),
    sglangFixedByPr(18396, '2026-02', 'trtllm_mla applies k_scale to a BF16 KV cache'),
  ],
  locateAt: 'trtllm-mla-backend',
  remedies: [
    {
      id: 'fp8-kv',
      change: { set: { kv_cache_dtype: 'fp8_e4m3' } },
      why: 'the record’s workaround: with an FP8 cache the scale belongs in BMM1',
    },
    {
      id: 'other-mla-backend',
      change: { set: { attention_backend: 'flashinfer' } },
      inferred: true,
      why: 'the defect is in trtllm_mla’s BMM1 scale',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend trtllm_mla',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v3',
      sglang: '0.5.6.post2',
      points: '--attention-backend',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend trtllm_mla --kv-cache-dtype fp8_e4m3',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v3',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang PR #18396: Fix TRT-LLM MLA backend applying k_scale to BF16 KV cache in BMM1',
      url: 'https://github.com/sgl-project/sglang/pull/18396',
    },
  ],
  docs: {
    problem:
      'An FP8 DeepSeek-V3 checkpoint on trtllm_mla with the default (BF16) KV cache produces degenerate repetition and random tokens.',
  },
});
