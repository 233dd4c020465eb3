import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { gpuFamily } from '../conditions/gpu.js';
import { fp8KvCache } from '../conditions/kv-cache.js';
import { contextExceedsWindow, slidingWindowLayers } from '../conditions/model.js';
import { qQuantizationDisabled } from '../conditions/query-dtype.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { trtllmGenDecode } from '../conditions/trtllm-decode.js';
import { affectedVersion } from '../conditions/versions.js';

/** The launch of vllm-project/vllm#47847 (examples/seed-b200/serve.sh). */
const SEED_COMMAND = `vllm serve nvidia/Gemma-4-31B-IT-NVFP4 \\
  --attention-backend FLASHINFER \\
  --kv-cache-dtype fp8_e4m3 \\
  --attention-config '{"disable_flashinfer_q_quantization": true}' \\
  --speculative-config '{"method": "mtp", "model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 7}'`;

/** The same launch with the query quantized to FP8 (the default). */
const SEED_COMMAND_FP8_QUERY = `vllm serve nvidia/Gemma-4-31B-IT-NVFP4 \\
  --attention-backend FLASHINFER \\
  --kv-cache-dtype fp8_e4m3 \\
  --speculative-config '{"method": "mtp", "model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 7}'`;

/** The canonical case: flashinfer-ai/flashinfer#3864 as served by vLLM (vllm-project/vllm#47847). */
export const FL001 = defineHazard({
  id: 'FL001',
  alias: 'swa-specdec-bf16q-fp8kv-trtllm',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'speculative decoding verified on trtllm-gen with a BF16 query over an FP8 KV cache silently corrupts sliding-window attention on SM100 once a sequence passes the window',
  mechanism:
    'On SM100-family GPUs vLLM sends every decode slice, including speculative verification ("spec-as-decode", ' +
    'q_len_per_req = num_speculative_tokens + 1 query tokens per request), to FlashInfer’s trtllm-gen decode kernel. ' +
    'With disable_flashinfer_q_quantization the query stays BF16 while the cache is FP8, which selects the mixed-precision ' +
    'kernels. Once a request’s sequence is longer than the sliding window, the kernel switches to its sliding-window mask, ' +
    'and in that combination (q_len_per_req 8 in the report) it returns wrong attention for individual (query row, head) ' +
    'pairs at some sequence lengths and page alignments. The error is large in those rows (max abs 0.8–1.8) and absent ' +
    'everywhere else, so generations stay fluent with a few wrong tokens and short loops. The root cause inside the ' +
    'closed-source cubins is not public; no fix has been released.',
  affected: {
    vllm: 'reported on nightly 0.23.1rc1.dev843+g04adc8843; same routing on main as of 2026-08; no fix (guard PR #47899 open)',
    flashinfer: 'reported on flashinfer-python 0.6.14 (cubin 0.6.13); open as of 0.6.18',
  },
  confidence: 'reproduced',
  confidenceReason:
    'flashinfer#3864 reproduces it with direct kernel calls (no vLLM, no CUDA graphs) and controls in the same grid: ' +
    'q_len_per_req 1, 2 and 4 clean, 8 wrong; vllm#47847 attributes it one factor at a time on the served model, and a ' +
    'second contributor reproduced it independently (FP8 query: clean; no speculative decoding: clean; full-attention-only ' +
    'model: clean); vLLM’s own guard proposal (PR #47899) rejects the launch',
  conditions: [
    slidingWindowLayers(),
    contextExceedsWindow(),
    gpuFamily(100),
    flashInferBackend(),
    fp8KvCache({ slidingLayers: true }),
    speculativeDecoding({
      maxCleanQueryLen: 4,
      note: (q) =>
        q === 8
          ? 'the failing q_len of flashinfer#3864'
          : q > 8
            ? 'deeper than the failing q_len 8 of flashinfer#3864; k=64 suffix decoding ran away in vllm#47847'
            : 'q_len 5–7 were not tested; 8 failed and ≤ 4 were clean',
    }),
    qQuantizationDisabled(),
    trtllmGenDecode(),
    affectedVersion({ pkg: 'vllm', record: 'reported on 0.23.1rc1.dev843; no fix merged upstream' }),
    affectedVersion({
      pkg: 'flashinfer',
      firstReported: '0.6.14',
      record: 'reported on 0.6.14; flashinfer#3864 open, no fixed release',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'fp8-query',
      change: { unset: 'attention_config.disable_flashinfer_q_quantization' },
      label:
        'drop attention_config.disable_flashinfer_q_quantization (let FlashInfer quantize the query to FP8, the default)',
      why: 'FP8 query + FP8 cache uses other kernels; with the same spec config the #47847 matrix and the #3864 controls were clean',
    },
    {
      id: 'bf16-kv-cache',
      change: { set: { kv_cache_dtype: 'bfloat16' } },
      why: 'a BF16 cache with a BF16 query avoids the mixed-precision kernels; note that dropping the flag is not enough when the checkpoint declares an FP8 KV cache, because auto follows it',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'without drafts every decode has q_len_per_req 1, which was clean in both reports',
    },
    {
      id: 'at-most-3-draft-tokens',
      change: { set: { 'speculative_config.num_speculative_tokens': 3 } },
      label: 'num_speculative_tokens ≤ 3 (q_len_per_req ≤ 4)',
      why: 'q_len_per_req 1, 2 and 4 were clean in flashinfer#3864’s grid; 8 failed',
    },
    {
      id: 'native-flashinfer-decode',
      change: { set: { 'attention_config.use_trtllm_attention': false } },
      why: 'decode and spec verification leave trtllm-gen for FlashInfer’s native wrappers (verify then runs as prefill, without FULL CUDA graphs)',
    },
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'another attention backend does not use the trtllm-gen kernels at all',
    },
    {
      id: 'gemma4-automatic-backend',
      change: { unset: 'attention_backend' },
      label: 'for Gemma 4: drop --attention-backend',
      why: 'with no backend given, vLLM picks TRITON_ATTN (FA4 on newer versions) for Gemma 4’s heterogeneous head dims and avoids FlashInfer itself',
    },
    {
      id: 'skip-sliding-layers',
      change: { set: { kv_cache_dtype_skip_layers: ['sliding_window'] } },
      inferred: true,
      why: 'vLLM’s --kv-cache-dtype-skip-layers sliding_window gives every sliding-window layer an unquantized (model dtype) cache, so the windowed kernels never see FP8 KV; the full-attention layers keep FP8. Not tested against the kernel by the record: the engine’s emulation (--kv-cache-dtype-skip-layers) lets kernel verify and a probe decide',
    },
  ],
  nonRemedies: [
    {
      id: 'enforce-eager',
      change: { add: '--enforce-eager' },
      why: 'the defect is in the kernel: flashinfer#3864 reproduces it with direct kernel calls, no CUDA graphs involved',
    },
    {
      id: 'disable-sliding-window',
      change: { add: '--disable-sliding-window' },
      avoidsBy: 'sliding-window-layers',
      why: 'it caps max_model_len to the window (1024 tokens for gemma-4-31B) and runs every layer as full attention: the corruption cannot occur only because the model loses its long context',
    },
    {
      id: 'kv-cache-dtype-auto',
      change: { unset: 'kv_cache_dtype' },
      label: 'drop --kv-cache-dtype (auto)',
      why: 'auto follows the checkpoint: an NVFP4 ModelOpt checkpoint such as gemma-4-31B-it-NVFP4 declares an FP8 KV cache, so the cache stays FP8',
    },
    {
      id: 'legacy-attention-env-vars',
      change: { env: { VLLM_USE_TRTLLM_ATTENTION: '0', VLLM_ATTENTION_BACKEND: 'TRITON_ATTN' } },
      label: 'VLLM_USE_TRTLLM_ATTENTION=0 or VLLM_ATTENTION_BACKEND=… on vLLM ≥ 0.15.0',
      why: 'vLLM 0.15.0 and later ignore these environment variables (removed by PR #32812); only older releases read them',
    },
  ],
  examples: {
    failing: {
      command: SEED_COMMAND,
      gpu: 'NVIDIA B200',
      model: 'gemma-4-31b-it-nvfp4',
      vllm: '0.23.1rc1.dev843+g04adc8843',
      flashinfer: '0.6.14',
      points: '--speculative-config',
    },
    clean: {
      command: SEED_COMMAND_FP8_QUERY,
      gpu: 'NVIDIA B200',
      model: 'gemma-4-31b-it-nvfp4',
      vllm: '0.23.1rc1.dev843+g04adc8843',
      flashinfer: '0.6.14',
    },
  },
  references: [
    {
      title:
        'flashinfer-ai/flashinfer#3864: trtllm-gen spec-as-decode (q_len_per_req=8) with BF16 query + FP8 KV cache silently mis-computes sliding-window attention on SM100',
      url: 'https://github.com/flashinfer-ai/flashinfer/issues/3864',
    },
    {
      title:
        'vllm-project/vllm#47847: disable_flashinfer_q_quantization + fp8 KV + spec decode silently corrupts sliding-window models on SM100',
      url: 'https://github.com/vllm-project/vllm/issues/47847',
    },
    {
      title:
        'vllm-project/vllm PR #47899: Reject unsafe FlashInfer BF16-Q + spec decode + SWA on SM100 (open)',
      url: 'https://github.com/vllm-project/vllm/pull/47899',
    },
    {
      title:
        'vllm-project/vllm PR #25196: Enable FlashInfer spec decoding (spec verify on the trtllm-gen decode kernel)',
      url: 'https://github.com/vllm-project/vllm/pull/25196',
    },
    {
      title:
        'vllm-project/vllm: vllm/config/cache.py @ 002f10e0 (kv_cache_dtype_skip_layers accepts "sliding_window") and vllm/model_executor/layers/attention/attention.py @ 0014ca6b (a sliding-window layer in the list gets kv_cache_dtype auto)',
      url: 'https://github.com/vllm-project/vllm/blob/main/vllm/config/cache.py',
    },
  ],
  docs: {
    problem:
      'A Gemma-4-style model (most layers sliding-window) served on a B200/B300 with FlashInfer, an FP8 KV cache, ' +
      'speculative decoding and `disable_flashinfer_q_quantization` answers fluently but wrongly once a conversation is ' +
      'longer than the window: a few tokens per answer are wrong and short loops appear ("a sequence of a sequence of"). ' +
      'With deep speculation (k = 64 suffix decoding) output runs away into repetition. Nothing is logged; /health stays 200. ' +
      'Each feature alone is fine — FP8 query with spec decoding is clean, BF16 query without spec decoding is clean.',
    exceptions:
      'The corruption needs a sequence longer than the sliding window, and then hits only some sequence lengths and page ' +
      'alignments, so short-prompt smoke tests pass. q_len_per_req 5–7 were not tested (8 failed, ≤ 4 were clean); lint ' +
      'treats them as affected. FP8 E5M2 and NVFP4 caches were not reported and are shown as unknown. trtllm-gen is also ' +
      'off when FlashInfer’s cubins cannot be fetched (air-gapped without flashinfer-cubin), which a launch file does not ' +
      'show. A Gemma 4 MTP drafter can be routed to FlashInfer even when the target model is not (vllm PR #48093); that ' +
      'path is not covered here.',
  },
});
