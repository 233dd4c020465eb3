import { defineHazard } from '../hazard.js';
import { attentionBackendIs } from '../conditions/backend-is.js';
import { gpuFamily } from '../conditions/gpu.js';
import { kvCacheDtypeIn } from '../conditions/kv-cache.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** flashinfer-ai/flashinfer#4731 (research/field-2026-12-round3.md §3.5 F1). */
export const FL042 = defineHazard({
  id: 'FL042',
  alias: 'xqa-nvfp4-kv-sm120-spec-verify',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'masked multi-token verification on FlashInfer’s XQA kernel over an NVFP4 KV cache on SM12x intermittently collapses speculative acceptance: throughput swings while the text stays right',
  mechanism:
    'On SM12x an NVFP4 KV cache is decoded by FlashInfer’s XQA kernel, and speculative verification sends it several ' +
    'query rows per request under a draft mask (q_len_per_req > 1). In that combination draft acceptance intermittently ' +
    'drops: MTP k=3 ran bimodally at 35–107 tokens/s, against a steady ~104 on the FA2 route with the same model. The ' +
    'accepted tokens are still verified, so the output stays correct; the kernel-side cause is not established.',
  affected: {
    flashinfer: 'reported on 0.6.16.post3; open',
    vllm: 'reported on a build of vLLM PR #46329 (SM12x NVFP4 KV through FlashInfer); which releases route multi-token verify this way is not established',
  },
  confidence: 'reported',
  conditions: [
    gpuFamily(120),
    kvCacheDtypeIn({ name: 'nvfp4-kv-cache', dtypes: ['nvfp4'], label: 'NVFP4' }),
    attentionBackendIs({ name: 'flashinfer-backend', backends: ['FLASHINFER'] }),
    speculativeDecoding({ maxCleanQueryLen: 1 }),
    affectedVersion({
      pkg: 'flashinfer',
      firstReported: '0.6.16.post3',
      record: 'reported on 0.6.16.post3; flashinfer#4731 open',
    }),
    affectedVersion({
      pkg: 'vllm',
      onlyByPullRequest: true,
      record:
        'reported on a build of vLLM PR #46329; which vLLM releases send masked multi-token verify with an NVFP4 cache to XQA is not established',
    }),
  ],
  locateAt: 'nvfp4-kv-cache',
  remedies: [
    {
      id: 'fp8-kv-cache',
      change: { set: { kv_cache_dtype: 'fp8_e4m3' } },
      inferred: true,
      why: 'the report ties the collapse to the NVFP4 XQA verify path; an FP8 cache does not take it',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'single-token decode sends XQA one unmasked row per request: nothing to accept or reject',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve nvidia/Qwen3.6-27B-NVFP4 --attention-backend FLASHINFER --kv-cache-dtype nvfp4 --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      gpu: 'NVIDIA GeForce RTX 5090',
      model: 'qwen3.6-27b-nvfp4',
      flashinfer: '0.6.16.post3',
      points: '--kv-cache-dtype',
      possibly: true,
    },
    clean: {
      command: `vllm serve nvidia/Qwen3.6-27B-NVFP4 --attention-backend FLASHINFER --kv-cache-dtype fp8_e4m3 --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      gpu: 'NVIDIA GeForce RTX 5090',
      model: 'qwen3.6-27b-nvfp4',
      flashinfer: '0.6.16.post3',
    },
  },
  references: [
    {
      title:
        'flashinfer-ai/flashinfer#4731: [sm120] NVFP4 KV: masked multi-token XQA verify (q_len_per_req>1) intermittently degrades spec-decode acceptance',
      url: 'https://github.com/flashinfer-ai/flashinfer/issues/4731',
    },
    {
      title: 'vllm-project/vllm PR #46329 (the vLLM tree the report ran)',
      url: 'https://github.com/vllm-project/vllm/pull/46329',
    },
  ],
  docs: {
    problem:
      'On an RTX 50xx / RTX PRO 6000 with an NVFP4 KV cache and MTP, throughput swings between ~35 and ~107 tokens/s ' +
      'from run to run because draft acceptance collapses at times; the same model on the FA2 route holds ~104. The ' +
      'answers themselves stay correct: a cost in speed, not in text, hence a warning.',
    exceptions:
      'Reported on one unmerged vLLM tree (PR #46329); the vLLM version condition stays unknown until a release is ' +
      'known to route multi-token verify with an NVFP4 cache to XQA. FL037 (V block scales on the same route) is a ' +
      'separate, output-corrupting hazard.',
  },
});
