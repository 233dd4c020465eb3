import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { concurrentRequests } from '../conditions/concurrency.js';
import { gpuFamily } from '../conditions/gpu.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { trtllmGenDecode } from '../conditions/trtllm-decode.js';
import { affectedVersion } from '../conditions/versions.js';

/** flashinfer-ai/flashinfer PR #4382: trtllm-gen multi-token decode reduction indexing. */
export const FL003 = defineHazard({
  id: 'FL003',
  alias: 'trtllm-gen-multitoken-reduction-index',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'trtllm-gen multi-token decode (speculative verify with q_len_per_req ≥ 5) corrupts attention for every request after the first in a batch on SM100 with flashinfer-python before 0.6.18rc2',
  mechanism:
    'For long contexts the trtllm-gen decode kernel splits the KV range over several CTAs and merges their partial ' +
    'results in a reduction kernel. With several query tokens per request that reduction indexed the packed query/output ' +
    'rows with a padded per-CTA stride instead of the request offset, and took the causal KV extent from the CTA index ' +
    'instead of the CTA’s last valid token. Request 0 is right; every later request in the batch reads and writes ' +
    'another request’s rows. Fixed by flashinfer PR #4382 (first in 0.6.18rc2).',
  affected: {
    flashinfer:
      '0.6.14 (first reported) through 0.6.17 and vLLM’s pinned 0.6.16.post3; fixed in 0.6.18rc2 (PR #4382)',
  },
  confidence: 'confirmed',
  conditions: [
    gpuFamily(100),
    flashInferBackend(),
    trtllmGenDecode(),
    speculativeDecoding({
      maxCleanQueryLen: 4,
      note: () => 'failures begin at q_len_per_req 5; 4 passed in the fix’s tests',
    }),
    concurrentRequests(),
    affectedVersion({
      pkg: 'flashinfer',
      firstReported: '0.6.14',
      fixed: '0.6.18rc2',
      record: 'reported from 0.6.14 (flashinfer#3929); fixed in 0.6.18rc2 by PR #4382',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'upgrade-flashinfer',
      change: { versions: { flashinfer: '0.6.18rc2' } },
      why: 'contains PR #4382, which indexes the reduction by request offset and the CTA’s last valid token',
    },
    {
      id: 'at-most-3-draft-tokens',
      change: { set: { 'speculative_config.num_speculative_tokens': 3 } },
      label: 'num_speculative_tokens ≤ 3 (q_len_per_req ≤ 4)',
      inferred: true,
      why: 'q_len_per_req 4 passed; the mis-indexing needs more query rows than one CTA tile holds',
    },
    {
      id: 'native-flashinfer-decode',
      change: { set: { 'attention_config.use_trtllm_attention': false } },
      why: 'decode and verification leave the trtllm-gen kernels and their reduction',
    },
    {
      id: 'one-sequence-at-a-time',
      change: { set: { max_num_seqs: 1 } },
      inferred: true,
      why: 'request 0 of a batch is always right; costs all batching throughput',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve google/gemma-4-31B-it --attention-backend FLASHINFER --speculative-config '{"method": "mtp", "num_speculative_tokens": 5}'`,
      gpu: 'NVIDIA B200',
      flashinfer: '0.6.16.post3',
      points: '--speculative-config',
    },
    clean: {
      command: `vllm serve google/gemma-4-31B-it --attention-backend FLASHINFER --speculative-config '{"method": "mtp", "num_speculative_tokens": 5}'`,
      gpu: 'NVIDIA B200',
      flashinfer: '0.6.18',
    },
  },
  references: [
    {
      title:
        'flashinfer-ai/flashinfer PR #4382: fix trtllm-gen reduction indexing for FMHA decode at long q_len',
      url: 'https://github.com/flashinfer-ai/flashinfer/pull/4382',
    },
    {
      title:
        'flashinfer-ai/flashinfer#3929: runFmhaReduction IMA on multi-bs CUDA graph capture (Gemma-4 hd=512, q_len=6)',
      url: 'https://github.com/flashinfer-ai/flashinfer/issues/3929',
    },
    {
      title:
        'flashinfer-ai/flashinfer PR #4059: uniform multi-token trtllm-gen decode mis-indexes packed Q/O without cum_seq_lens_q (open)',
      url: 'https://github.com/flashinfer-ai/flashinfer/pull/4059',
    },
  ],
  docs: {
    problem:
      'With MTP at num_speculative_tokens 5 on Gemma 4 31B and contexts around 26k tokens, requests that share a batch ' +
      'with another request get wrong attention from the first verification step on: they repeat one token until ' +
      'max_tokens. At batch size 4 about 94 % of requests were affected and throughput fell from 6.05 to 0.41 requests/s. ' +
      'A single request at a time is correct, which is why one-at-a-time smoke tests pass.',
    exceptions:
      'The multi-CTA reduction runs only for long contexts, so short conversations are not affected; a launch file does not ' +
      'say how long contexts get. SGLang saw the same kernel fault as an illegal memory access during CUDA-graph capture ' +
      '(loud). Versions before 0.6.14 are not established either way.',
  },
});
