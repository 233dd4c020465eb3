import { defineHazard } from '../hazard.js';
import { gpuFamily } from '../conditions/gpu.js';
import { attentionBackend, notDisabled } from '../conditions/sglang/conditions.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #22688, issue #22291 (research/field-2026-12.md S1). */
export const FL211 = defineHazard({
  id: 'FL211',
  alias: 'sgl-trtllm-mla-chunked-prefill-zero-length',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'SGLang’s trtllm_mla prefill over cached prefixes of different lengths merges empty (kv_len 0) chunks: per-sequence error 1.0–3.0 against < 0.07 on fa4 / flashinfer',
  mechanism:
    'The chunked prefix-KV decompression of a batch whose sequences hit radix prefixes of different lengths produced kv_len=0 chunks for some rows, and their partial results were merged as if valid.',
  affected: { sglang: 'releases before PR #22688 (merged Apr 2026)' },
  confidence: 'confirmed',
  conditions: [
    attentionBackend(
      'trtllm-mla-prefill',
      ['trtllm_mla'],
      ['prefill'],
      'prefill runs on the trtllm_mla backend',
    ),
    notDisabled(
      'radix-cache',
      'disable_radix_cache',
      'the radix (prefix) cache is on (no --disable-radix-cache)',
    ),
    gpuFamily(100),
    sglangFixedByPr(22688, '2026-04', 'trtllm_mla chunked-prefill zero-length chunks'),
  ],
  locateAt: 'trtllm-mla-prefill',
  remedies: [
    {
      id: 'flashinfer-prefill',
      change: { set: { prefill_attention_backend: 'flashinfer' } },
      why: 'the record’s controls: fa4 and flashinfer stay below 0.07 MSE on the same batches',
    },
    {
      id: 'no-radix-cache',
      change: { add: '--disable-radix-cache' },
      inferred: true,
      why: 'without cached prefixes the batch has no prefix chunks of different lengths',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp-size 8 --attention-backend trtllm_mla',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v3',
      sglang: '0.5.6.post2',
      points: '--attention-backend',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp-size 8 --attention-backend flashinfer',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v3',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #22688: Fix trtllm mla chunked-prefill zero-length bug (#22291)',
      url: 'https://github.com/sgl-project/sglang/pull/22688',
    },
  ],
  docs: {
    problem:
      'DeepSeek-style models on Blackwell with trtllm_mla answer worse for requests that share part of a prefix with others in the batch; single requests look fine.',
  },
});
