import { defineHazard } from '../hazard.js';
import { calibratedQScale } from '../conditions/checkpoint-scales.js';
import { flashInferOnSm12x } from '../conditions/flashinfer-sm120.js';
import { gpuFamily } from '../conditions/gpu.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#53481 / PR #53754: FlashInfer's native wrappers apply q_scale to an unquantized query on SM12x. */
export const FL036 = defineHazard({
  id: 'FL036',
  alias: 'fi-sm120-native-q-scale',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'FlashInfer on SM12x applies a checkpoint’s calibrated q_scale to a query that was never quantized: degenerate output from the first token, with any KV cache dtype',
  mechanism:
    'On SM12x the FlashInfer backend runs the native wrappers with a BF16 query. vLLM passes them the layer’s q_scale, ' +
    'which only makes sense for a query quantized with it, so the attention logits are scaled by q_scale (0.0277 in ' +
    'Ministral-3-3B’s layer 0; max abs error 0.374 instead of 0.001, per the open fix PR #53754). An FP8 KV cache makes ' +
    'it surface by itself: it removes FLASH_ATTN from the candidates, and auto-selection lands on FlashInfer.',
  affected: { vllm: 'reported on 0.26.0 and 0.27.1; fix PR #53754 open' },
  confidence: 'reproduced',
  confidenceReason:
    'vllm#53481 holds the checkpoint and GPU fixed and swaps only the backend (TRITON_ATTN and FLASH_ATTN correct, FLASHINFER degenerate); PR #53754 measures layer 0 alone: max abs error 0.374 with the q_scale applied, 0.00098 without',
  conditions: [
    gpuFamily(120),
    flashInferOnSm12x(),
    calibratedQScale(),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.26.0',
      record: 'reported on 0.26.0 and 0.27.1; fix PR #53754 open',
    }),
  ],
  locateAt: 'flashinfer-backend',
  remedies: [
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'correct in the report, with a BF16 and with an FP8 KV cache',
    },
  ],
  nonRemedies: [
    {
      id: 'bf16-kv-cache',
      change: { set: { kv_cache_dtype: 'bfloat16' } },
      why: 'with FlashInfer chosen explicitly, a BF16 cache is just as wrong: the KV dtype is not the variable',
    },
  ],
  examples: {
    failing: {
      command:
        'vllm serve mistralai/Ministral-3-3B-Instruct-2512 --tokenizer-mode mistral --config-format mistral --load-format mistral --max-model-len 8192 --attention-backend FLASHINFER',
      gpu: 'NVIDIA RTX PRO 2000 Blackwell',
      model: 'ministral-3-3b-calibrated',
      vllm: '0.27.1',
      points: '--attention-backend',
    },
    clean: {
      command:
        'vllm serve mistralai/Ministral-3-3B-Instruct-2512 --tokenizer-mode mistral --config-format mistral --load-format mistral --max-model-len 8192 --attention-backend TRITON_ATTN',
      gpu: 'NVIDIA RTX PRO 2000 Blackwell',
      model: 'ministral-3-3b-calibrated',
      vllm: '0.27.1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#53481: FLASHINFER backend produces degenerate output for Mistral3 (Ministral-3-3B) on sm_120 with ANY kv-cache dtype; TRITON_ATTN and FLASH_ATTN correct',
      url: 'https://github.com/vllm-project/vllm/issues/53481',
    },
    {
      title: 'vllm-project/vllm PR #53754: Ignore q_scale for FlashInfer native BF16 queries (open)',
      url: 'https://github.com/vllm-project/vllm/pull/53754',
    },
  ],
  docs: {
    problem:
      'Ministral-3-3B on an RTX PRO 2000 Blackwell answers "#########…" or token salad from the very first token, even for a ' +
      '23-token prompt. It presents as "FP8 KV breaks Ministral", because an FP8 cache is what makes vLLM pick FlashInfer.',
    exceptions:
      'Checkpoints without q_scale (or with 1.0) are not affected; the checkpoint must be inspected to know. The SM100 ' +
      'variant with disable_flashinfer_q_quantization is FL002.',
  },
});
