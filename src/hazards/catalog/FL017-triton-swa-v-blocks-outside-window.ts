import { defineHazard } from '../hazard.js';
import { attentionBackendIs } from '../conditions/backend-is.js';
import { contextExceedsWindow, slidingWindowLayers } from '../conditions/model.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #30887: the Triton attention kernels read V blocks outside the sliding window. */
export const FL017 = defineHazard({
  id: 'FL017',
  alias: 'triton-swa-v-blocks-outside-window',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'the TRITON_ATTN backend on a sliding-window model reads V blocks outside the window once a sequence passes it: garbage (possibly NaN) values corrupt attention (vLLM before PR #30887)',
  mechanism:
    'The Triton attention kernels skipped the key positions outside the sliding window but did not mask the matching V ' +
    'blocks, so the output accumulated values from cache blocks that fall outside the window — blocks that may hold ' +
    'another request’s data or NaN. PR #30887 masks those V blocks.',
  affected: { vllm: 'before PR #30887 (merged; opened 2025-12-17); 0.23.1 and later contain it' },
  confidence: 'confirmed',
  conditions: [
    attentionBackendIs({ name: 'triton-attention-backend', backends: ['TRITON_ATTN'] }),
    slidingWindowLayers(),
    contextExceedsWindow(),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'PR #30887',
      containsFixFrom: {
        version: '0.23.1',
        why: 'PR #30887 was opened on 2025-12-17 and merged, and 0.23.1 release candidates were nightlies of 2026-07 (vllm#47847)',
      },
      record: 'fixed by PR #30887 (Dec 2025); the first release containing it is not established',
    }),
  ],
  locateAt: 'triton-attention-backend',
  remedies: [
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.23.1' } },
      why: 'a release cut after PR #30887 merged: the kernels mask the V blocks outside the window',
    },
    {
      id: 'flash-attn-backend',
      change: { set: { attention_backend: 'FLASH_ATTN' } },
      inferred: true,
      why: 'the defect is in the Triton kernels; FlashAttention has its own sliding-window masking',
    },
  ],
  nonRemedies: [
    {
      id: 'one-sequence-at-a-time',
      change: { set: { max_num_seqs: 1 } },
      why: 'the PR’s reproduction ran with --max-num-seqs 1: one request alone still reads the stale blocks',
    },
  ],
  examples: {
    failing: {
      command:
        'vllm serve openai/gpt-oss-20b --attention-backend TRITON_ATTN --tool-call-parser openai --enable-auto-tool-choice --tensor-parallel-size 2',
      model: 'gpt-oss-20b',
      vllm: '0.11.1',
      points: '--attention-backend',
      possibly: true,
    },
    clean: {
      command:
        'vllm serve openai/gpt-oss-20b --attention-backend TRITON_ATTN --tool-call-parser openai --enable-auto-tool-choice --tensor-parallel-size 2',
      model: 'gpt-oss-20b',
      vllm: '0.23.1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm PR #30887: Triton attention kernels: mask out V blocks that fall outside sliding window',
      url: 'https://github.com/vllm-project/vllm/pull/30887',
    },
    {
      title: 'vllm-project/vllm#29998 (potentially fixed by PR #30887)',
      url: 'https://github.com/vllm-project/vllm/issues/29998',
    },
    {
      title: 'vllm-project/vllm#26480 (potentially fixed by PR #30887)',
      url: 'https://github.com/vllm-project/vllm/issues/26480',
    },
  ],
  docs: {
    problem:
      'A sliding-window model (gpt-oss, Gemma) on the TRITON_ATTN backend produces corrupted output once a conversation is ' +
      'longer than its window: attention adds in values from cache blocks outside the window, which can hold unrelated ' +
      'data or NaN. The PR reproduced it with gpt-oss-20b, tool calling and TP 2, one request at a time.',
    exceptions:
      'No attention backend given is unknown: whether vLLM picks TRITON_ATTN depends on GPU, KV dtype and model (it does ' +
      'for Gemma 4 on some releases). Releases between the fix and 0.23.1 are unknown because the first release containing ' +
      'PR #30887 is not established.',
  },
});
