import { defineHazard } from '../hazard.js';
import { staticFp8OrNvfp4Activations } from '../conditions/activation-quant.js';
import { allreduceRmsFusion } from '../conditions/allreduce-fusion.js';
import { gemmaStyleRmsNorm } from '../conditions/gemma-rmsnorm.js';
import { tensorParallel } from '../conditions/tensor-parallel.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#48324 → PR #48330: fused allreduce + residual RMSNorm + quant with FP32 Gemma-style norm weights. */
export const FL012 = defineHazard({
  id: 'FL012',
  alias: 'ar-rmsnorm-quant-fusion',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'with tensor parallelism, the fused allreduce + residual RMSNorm + static FP8/NVFP4 quant op corrupts the hidden state of Gemma-style-RMSNorm models (Gemma, Qwen3.5/3.6): output "!!!!!!"',
  mechanism:
    'The allreduce + RMSNorm fusion pass replaces allreduce, residual add, RMSNorm and the following static FP8 or ' +
    'NVFP4 quantization with one FlashInfer op. Gemma-style RMSNorm uses an FP32 effective weight (weight.float() + ' +
    '1.0) next to BF16 activations; the residual quantized fusion patterns (added in vLLM #21069) lacked the ' +
    'input/weight dtype check the other patterns had, so the mixed-dtype graph was fused anyway and the hidden state ' +
    'came out corrupted. PR #48330 adds the check: mixed-dtype graphs fall back to allreduce + Gemma-RMSNorm fusion ' +
    'followed by a separate quantization.',
  affected: {
    vllm: 'reported on 0.24.0; fixed by PR #48330 (merged Jul 2026), first released in v0.25.1 (2026-07-14)',
  },
  confidence: 'confirmed',
  conditions: [
    tensorParallel(2),
    allreduceRmsFusion(),
    staticFp8OrNvfp4Activations(),
    gemmaStyleRmsNorm(),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.24.0',
      lastReported: '0.24.0',
      fixedBy: 'PR #48330',
      fixed: '0.25.1',
      record:
        'reported on 0.24.0; fixed in 0.25.1 by PR #48330 (release notes: "Guard mixed-dtype allreduce RMSNorm quant fusions")',
    }),
  ],
  locateAt: 'allreduce-rms-fusion',
  remedies: [
    {
      id: 'no-allreduce-rms-fusion',
      change: { set: { 'compilation_config.pass_config.fuse_allreduce_rms': false } },
      why: 'the workaround upstream: allreduce, RMSNorm and quantization run as separate ops',
    },
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.25.1' } },
      why: 'v0.25.1 is the first release with PR #48330: mixed-dtype graphs are no longer fused with the quantization',
    },
    {
      id: 'tensor-parallel-1',
      change: { set: { tensor_parallel_size: 1 } },
      why: 'no allreduce to fuse; the reporter could not reproduce it on one GPU',
    },
  ],
  nonRemedies: [
    {
      id: 'no-cuda-graphs',
      change: { set: { 'compilation_config.cudagraph_mode': 'NONE' } },
      why: 'the reporter ruled out CUDA-graph replay: the fused op itself produces the corrupted hidden state',
    },
  ],
  examples: {
    failing: {
      command:
        'VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm vllm serve nvidia/Qwen3.6-27B-NVFP4 --tensor-parallel-size 2 ' +
        '-cc.pass_config.fuse_allreduce_rms=true',
      gpu: 'NVIDIA B200',
      model: 'qwen3.6-27b-nvfp4',
      vllm: '0.24.0',
      points: '-cc.pass_config.fuse_allreduce_rms=true',
    },
    clean: {
      command:
        'vllm serve nvidia/Qwen3.6-27B-NVFP4 --tensor-parallel-size 2 -cc.pass_config.fuse_allreduce_rms=false',
      gpu: 'NVIDIA B200',
      model: 'qwen3.6-27b-nvfp4',
      vllm: '0.24.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#48324: FlashInfer fused allreduce + residual RMSNorm + quant produces corrupted output with FP32 norm weights',
      url: 'https://github.com/vllm-project/vllm/issues/48324',
    },
    {
      title: 'vllm-project/vllm PR #48330: [Bugfix] Guard mixed-dtype allreduce RMSNorm quant fusions',
      url: 'https://github.com/vllm-project/vllm/pull/48330',
    },
    {
      title:
        'vllm-project/vllm v0.25.1 release notes (2026-07-14): "Guard mixed-dtype allreduce RMSNorm quant fusions (#48330)"',
      url: 'https://github.com/vllm-project/vllm/releases/tag/v0.25.1',
    },
    {
      title: 'vllm-project/vllm PR #41972: [ROCm] Fix AITER AR+RMSNorm no-residual fusion (the ROCm sibling)',
      url: 'https://github.com/vllm-project/vllm/pull/41972',
    },
    {
      title:
        'vllm-project/vllm PR #44694: Fix Qwen3.5-FP8 nightly fail (the loud block-FP8 relative, rejected at startup)',
      url: 'https://github.com/vllm-project/vllm/pull/44694',
    },
  ],
  docs: {
    problem:
      'nvidia/Qwen3.6-27B-NVFP4 served with tensor parallelism 2 and the allreduce + RMSNorm fusion on vLLM 0.24.0 ' +
      'answers with a wall of "!!!!!!!!". The server reports nothing wrong; on a single GPU the same checkpoint is fine.',
    exceptions:
      'Whether a vLLM version or optimization level enables fuse_allreduce_rms by default is not established, so an ' +
      'unset pass is reported as "possibly affected": set it explicitly. The record names static FP8 and NVFP4; dynamic ' +
      'FP8 and weight-only checkpoints are not flagged, and block-FP8 with the same dtype mismatch aborted at startup ' +
      '(PR #44694, loud). The ROCm sibling (PR #41972: AITER no-residual fusion adding uninitialized memory, MiniMax-M2.5, ' +
      'TP 4) has other conditions and is not modelled here. Releases between 0.24.0 and 0.25.1 were not reported on; ' +
      'they are treated as affected (the fix first shipped in 0.25.1).',
  },
});
