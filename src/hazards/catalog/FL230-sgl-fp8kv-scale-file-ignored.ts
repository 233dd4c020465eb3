import { defineHazard } from '../hazard.js';
import type { Condition } from '../hazard.js';
import { sglArg } from '../conditions/sglang/args.js';
import { attentionBackend } from '../conditions/sglang/conditions.js';
import { fp8KvCache } from '../conditions/sglang/features.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

const scaleFile: Condition = {
  name: 'kv-scale-file',
  description: 'KV scales are given in a file (--quantization-param-path)',
  check(d) {
    const v = sglArg(d, 'quantization_param_path');
    return v.value == null
      ? { status: 'not-met', detail: 'no --quantization-param-path', at: d.at }
      : { status: 'met', detail: `--quantization-param-path ${String(v.value)}`, at: v.at };
  },
};

/** sgl-project/sglang PR #20705 (closed) (research/field-2026-12.md S9). */
export const FL230 = defineHazard({
  id: 'FL230',
  alias: 'sgl-fp8kv-scale-file-ignored',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: KV scales from --quantization-param-path are silently ignored on SGLang’s FlashInfer and triton backends (unit scales used; FlashAttention crashes)',
  mechanism:
    'The scale file was not plumbed into the FlashInfer / triton FP8 KV paths, which fall back to 1.0.',
  affected: { sglang: 'PR #20705 closed; status not established' },
  confidence: 'reported',
  conditions: [
    fp8KvCache(),
    scaleFile,
    attentionBackend(
      'flashinfer-or-triton',
      ['flashinfer', 'triton'],
      ['prefill', 'decode'],
      'attention runs on the FlashInfer or triton backend',
    ),
    sglangOpen('KV scale file ignored'),
  ],
  locateAt: 'kv-scale-file',
  remedies: [
    {
      id: 'bf16-kv',
      change: { unset: ['kv_cache_dtype', 'quantization_param_path'] },
      label: 'the default (BF16) KV cache, no scale file',
      why: 'no FP8 scales are needed',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8_e4m3 --quantization-param-path /models/kv_scales.json --attention-backend flashinfer',
      model: 'sgl-llama-3.1-8b',
      points: '--quantization-param-path',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8_e4m3 --attention-backend flashinfer',
      model: 'sgl-llama-3.1-8b',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang PR #20705: fix broken KV cache FP8 scale loading: crashes on FlashAttention, silently ignored on other backends',
      url: 'https://github.com/sgl-project/sglang/pull/20705',
    },
  ],
  docs: {
    problem:
      'Known from a closed pull request: calibrated KV scales given as a file have no effect on FlashInfer and triton, so the FP8 cache runs at unit scales and accuracy drops.',
  },
});
