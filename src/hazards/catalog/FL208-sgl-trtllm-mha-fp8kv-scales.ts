import { defineHazard } from '../hazard.js';
import { attentionBackend } from '../conditions/sglang/conditions.js';
import { fp8KvCache } from '../conditions/sglang/features.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #28144, backport PR #29278 (research/interaction-bugs.md C12, variant 2). */
export const FL208 = defineHazard({
  id: 'FL208',
  alias: 'sgl-trtllm-mha-fp8kv-scales',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'SGLang’s trtllm_mha backend with an FP8 KV cache drops a scale (Q’s dynamic q_scale from BMM1, or v_scale from BMM2): quality drops, text turns repetitive',
  mechanism:
    'On main, Q was cast to FP8 for TRTLLM-GEN without its dynamic q_scale in bmm1_scale; on the v0.5.9 release branch bmm2_scale was hard-coded to 1.0, ignoring v_scale. ' +
    'trtllm_mha is what SGLang picks by itself on Blackwell for most MHA models, so a launch that names no backend gets it.',
  affected: { sglang: 'releases before PR #28144 (merged Jun 2026; v0.5.9 backport PR #29278)' },
  confidence: 'confirmed',
  conditions: [
    attentionBackend(
      'trtllm-mha-backend',
      ['trtllm_mha'],
      ['prefill', 'decode'],
      'attention runs on the trtllm_mha backend (chosen by SGLang on Blackwell when none is given)',
    ),
    fp8KvCache(),
    sglangFixedByPr(28144, '2026-06', 'trtllm_mha FP8-KV scale handling'),
  ],
  locateAt: 'fp8-kv-cache',
  remedies: [
    {
      id: 'bf16-kv',
      change: { unset: 'kv_cache_dtype' },
      label: 'the default (BF16) KV cache',
      why: 'the record’s workaround: no FP8 scales to drop',
    },
    {
      id: 'flashinfer-backend',
      change: { set: { attention_backend: 'flashinfer' } },
      inferred: true,
      why: 'the dropped scales are in the trtllm_mha path',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct-FP8 --tp-size 4 --kv-cache-dtype fp8_e4m3',
      gpu: 'NVIDIA B200',
      model: 'sgl-llama-3.1-70b-fp8',
      sglang: '0.5.6.post2',
      points: '--kv-cache-dtype',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct-FP8 --tp-size 4 --kv-cache-dtype fp8_e4m3 --attention-backend fa3',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-llama-3.1-70b-fp8',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #28144: Fix TRTLLM MHA FP8 KV cache scale handling',
      url: 'https://github.com/sgl-project/sglang/pull/28144',
    },
    {
      title: 'sgl-project/sglang PR #29278: [v0.5.9] Fix TRTLLM MHA FP8 V scale',
      url: 'https://github.com/sgl-project/sglang/pull/29278',
    },
  ],
  docs: {
    problem:
      'Llama-3.1-70B-Instruct-FP8 on B200 with an FP8 KV cache writes repetitive, low-quality text; Gemma-4-26B-A4B-NVFP4 loses quality. The launch need not name trtllm_mha: SGLang 0.5.6 and later choose it on Blackwell.',
    exceptions:
      'Which release first contains PR #28144 is not established; the v0.5.9 line has the V-scale variant until PR #29278.',
  },
});
