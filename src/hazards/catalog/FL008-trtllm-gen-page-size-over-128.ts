import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { largeKvPages } from '../conditions/block-size.js';
import { gpuFamily } from '../conditions/gpu.js';
import { trtllmGenDecode } from '../conditions/trtllm-decode.js';
import { affectedVersion } from '../conditions/versions.js';

/** flashinfer-ai/flashinfer#4347: trtllm-gen paged attention wrong with pages > 128 tokens. */
export const FL008 = defineHazard({
  id: 'FL008',
  alias: 'trtllm-gen-page-size-over-128',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'FlashInfer trtllm-gen paged attention on SM100 returns wrong output when a KV page holds more than 128 tokens',
  mechanism:
    'The trtllm-gen paged-attention kernels were written for pages of at most 128 tokens; older FlashInfer rejected ' +
    'larger pages with an error (flashinfer#1796). Once that check no longer fired, larger pages — which hybrid ' +
    'Mamba/GDN serving produces by aligning the attention block to the recurrent-state page — gave incorrect attention. ' +
    'A maintainer reproduced it on 0.6.16; PR #3849 fixed it on main.',
  affected: { flashinfer: 'reproduced on 0.6.16; fixed on main by PR #3849 (first release not established)' },
  confidence: 'confirmed',
  conditions: [
    gpuFamily(100),
    flashInferBackend(),
    trtllmGenDecode(),
    largeKvPages(),
    affectedVersion({
      pkg: 'flashinfer',
      lastReported: '0.6.16.post3',
      fixedBy: 'PR #3849',
      record: 'reproduced on 0.6.16; fixed on main by PR #3849',
    }),
  ],
  locateAt: 'kv-page-over-128',
  remedies: [
    {
      id: 'block-size-128',
      change: { set: { block_size: 128 } },
      label: '--block-size 128 or smaller',
      why: 'pages within the size the kernels were written for',
    },
    {
      id: 'native-flashinfer-decode',
      change: { set: { 'attention_config.use_trtllm_attention': false } },
      why: 'keeps paged attention off the trtllm-gen kernels',
    },
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'another backend, other kernels',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --attention-backend FLASHINFER --block-size 256',
      gpu: 'NVIDIA B200',
      model: 'qwen3-next-80b-a3b',
      flashinfer: '0.6.16',
      points: '--block-size',
    },
    clean: {
      command: 'vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --attention-backend FLASHINFER --block-size 128',
      gpu: 'NVIDIA B200',
      model: 'qwen3-next-80b-a3b',
      flashinfer: '0.6.16',
    },
  },
  references: [
    {
      title:
        'flashinfer-ai/flashinfer#4347: Blackwell TRTLLM-Gen paged attention kernel is incorrect with page sizes > 128',
      url: 'https://github.com/flashinfer-ai/flashinfer/issues/4347',
    },
    {
      title:
        'flashinfer-ai/flashinfer#1796: Unable to run Qwen3-Next-80B-A3B-Instruct using B200, vllm and Flashinfer backend',
      url: 'https://github.com/flashinfer-ai/flashinfer/issues/1796',
    },
  ],
  docs: {
    problem:
      'On B200/B300 with FlashInfer, attention over KV pages larger than 128 tokens is wrong (labelled P0 upstream). ' +
      'Public reports show attention blocks of 528, 544 and 1600 tokens for hybrid Mamba/GDN models such as Qwen3-Next.',
    exceptions:
      'Hybrid models choose their block size themselves; without --block-size lint reports the page size as unknown. ' +
      'Older vLLM releases accept only block sizes up to 64 on FlashInfer and reject larger ones at startup (loud).',
  },
});
