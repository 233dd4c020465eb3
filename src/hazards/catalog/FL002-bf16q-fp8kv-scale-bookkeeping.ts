import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { fp8KvCache } from '../conditions/kv-cache.js';
import { qQuantizationDisabled } from '../conditions/query-dtype.js';
import { miscountedScales } from '../conditions/scales.js';
import { affectedVersion } from '../conditions/versions.js';

/** The second defect of vllm-project/vllm#47847: scale bookkeeping on FlashInfer's BF16-query paths. */
export const FL002 = defineHazard({
  id: 'FL002',
  alias: 'bf16q-fp8kv-scale-bookkeeping',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'FlashInfer with a BF16 query over an FP8 KV cache mis-applies the checkpoint’s attention scales (q_scale on an unquantized query; k/v scales twice in forced trtllm-gen prefill)',
  mechanism:
    'vLLM computes the trtllm-gen scale bmm1 = softmax_scale × q_scale × k_scale once, from the KV dtype alone. ' +
    'That is right for an FP8 query, which was divided by q_scale when it was quantized, and wrong for a BF16 query, ' +
    'which was not: attention logits are multiplied by q_scale, a softmax temperature change. The native FlashInfer ' +
    'wrappers receive q_scale as well (from vLLM PR #43232 on) and apply it unconditionally. When prefill is forced onto ' +
    'trtllm-gen with a BF16 query, vLLM first dequantizes the FP8 cache into a BF16 copy (multiplying by k_scale and ' +
    'v_scale) and then passes the same bmm1/bmm2 scales again, so k and v are scaled twice. All of it is invisible ' +
    'while every scale is 1.0, which is what vLLM uses when the checkpoint has none.',
  affected: {
    vllm: 'trtllm-gen decode: all versions with spec-as-decode; native wrappers: from PR #43232 (nightly 0.23.1rc1.dev843); fixes PR #48016 and PR #53754 open',
  },
  confidence: 'reported',
  conditions: [
    flashInferBackend(),
    fp8KvCache(),
    qQuantizationDisabled(),
    miscountedScales(),
    affectedVersion({ pkg: 'vllm', record: 'fix PRs #48016 and #53754 are open; nothing merged' }),
  ],
  locateAt: 'q-quantization-disabled',
  remedies: [
    {
      id: 'fp8-query',
      change: { unset: 'attention_config.disable_flashinfer_q_quantization' },
      label: 'drop attention_config.disable_flashinfer_q_quantization (FP8 query, the default)',
      why: 'a quantized query was divided by q_scale, so the fused bmm1 = sm × q × k is then correct, and prefill reads the FP8 cache directly',
    },
    {
      id: 'bf16-kv-cache',
      change: { set: { kv_cache_dtype: 'bfloat16' } },
      why: 'with an unquantized cache vLLM folds no q/k/v scale into the attention scales',
    },
  ],
  nonRemedies: [
    {
      id: 'native-flashinfer-wrappers',
      change: { set: { 'attention_config.use_trtllm_attention': false } },
      why: 'the native FlashInfer wrappers also receive q_scale and apply it to the BF16 query (vllm PR #53754, open)',
    },
    {
      id: 'enforce-eager',
      change: { add: '--enforce-eager' },
      why: 'the wrong factors are computed on the host, independent of CUDA graphs',
    },
  ],
  examples: {
    failing: {
      command:
        'vllm serve /models/gemma-4-31b-it-nvfp4-calibrated --attention-backend FLASHINFER --kv-cache-dtype fp8_e4m3 ' +
        `--attention-config '{"disable_flashinfer_q_quantization": true}'`,
      gpu: 'NVIDIA B200',
      model: 'gemma-4-31b-it-nvfp4-calibrated',
      points: '--attention-config',
    },
    clean: {
      command:
        'vllm serve /models/gemma-4-31b-it-nvfp4-calibrated --attention-backend FLASHINFER --kv-cache-dtype fp8_e4m3',
      gpu: 'NVIDIA B200',
      model: 'gemma-4-31b-it-nvfp4-calibrated',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm#47847: … BF16-Q paths also mis-apply q/k/v scales',
      url: 'https://github.com/vllm-project/vllm/issues/47847',
    },
    {
      title:
        'vllm-project/vllm PR #48016: Do not re-apply q/k/v scales on FlashInfer TRTLLM BF16-Q paths (open)',
      url: 'https://github.com/vllm-project/vllm/pull/48016',
    },
    {
      title: 'vllm-project/vllm PR #53754: Ignore q_scale for FlashInfer native BF16 queries (open)',
      url: 'https://github.com/vllm-project/vllm/pull/53754',
    },
    {
      title: 'vllm-project/vllm PR #24197: BF16-Q + FP8-KV trtllm prefill dequant fallback',
      url: 'https://github.com/vllm-project/vllm/pull/24197',
    },
  ],
  docs: {
    problem:
      'A checkpoint calibrated with attention scales (q_scale, k_scale, v_scale ≠ 1) served with FlashInfer, an FP8 KV ' +
      'cache and `disable_flashinfer_q_quantization` computes attention with the wrong temperature: logits are scaled by ' +
      'q_scale although the query was never quantized, and a forced trtllm-gen prefill scales K and V twice. In a reported ' +
      'BF16-query case (q_scale 0.0277) the attention output error was 0.374 instead of 0.001. Output degrades without any ' +
      'error message.',
    exceptions:
      'Harmless when every scale is 1.0 — true for checkpoints without q/k/v scale tensors, since vLLM then uses 1.0. ' +
      'Without an inspected checkpoint lint cannot know and reports the scales as unknown. The k/v double application ' +
      'needs trtllm-gen prefill, which vLLM forces only with use_trtllm_attention=true, kernel block size ≥ 128 or ' +
      'attention sinks; the auto path sends a BF16-query/FP8-cache prefill to the native wrapper instead. On GPUs outside ' +
      'SM90/SM100 FlashInfer keeps the query BF16 even without the flag; that variant is not covered here.',
  },
});
