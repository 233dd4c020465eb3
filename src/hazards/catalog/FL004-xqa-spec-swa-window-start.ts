import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { gpuFamily } from '../conditions/gpu.js';
import { slidingWindowLayers } from '../conditions/model.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** flashinfer-ai/flashinfer PR #4137: XQA applied one window start to the whole draft block. */
export const FL004 = defineHazard({
  id: 'FL004',
  alias: 'xqa-spec-swa-window-start',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'XQA speculative verification on sliding-window layers (SM12x) with flashinfer-python before 0.6.16 masks out keys the earlier draft rows should see',
  mechanism:
    'FlashInfer’s XQA decode kernel verified a multi-token draft block with a single sliding-window start, computed from ' +
    'the last draft token’s position and applied to every row. Earlier rows, whose windows start earlier, lost the oldest ' +
    'keys they should attend to, so their verification logits were wrong. PR #4137 masks each row with its own window ' +
    'edge; it reached the v0.6.16 release tag through the release-branch cherry-pick c46207c23 (v0.6.16rc1 does not ' +
    'have it).',
  affected: {
    flashinfer: 'before 0.6.16 (PR #4137, in the v0.6.16 tag by cherry-pick c46207c23; not in 0.6.16rc1)',
    vllm: 'SM12x XQA speculative decode arrived with PR #49718, which already requires flashinfer-python 0.6.16.post1',
  },
  confidence: 'confirmed',
  conditions: [
    gpuFamily(120),
    flashInferBackend(),
    slidingWindowLayers(),
    speculativeDecoding({ maxCleanQueryLen: 1 }),
    affectedVersion({
      pkg: 'flashinfer',
      fixed: '0.6.16',
      record: 'fixed in 0.6.16 by PR #4137 (cherry-pick c46207c23; 0.6.16rc1 does not have it)',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'upgrade-flashinfer',
      change: { versions: { flashinfer: '0.6.16' } },
      why: 'PR #4137 applies each draft row’s own window start',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'single-token decode has one row per request, whose window start is right',
    },
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'keeps verification off the XQA kernel',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'`,
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      model: 'gemma-3-27b-it',
      flashinfer: '0.6.15',
      points: '--speculative-config',
    },
    clean: {
      command: `vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'`,
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      model: 'gemma-3-27b-it',
      flashinfer: '0.6.16',
    },
  },
  references: [
    {
      title:
        'flashinfer-ai/flashinfer PR #4137: ragged Q and per-row sliding-window masking for speculative decode (XQA)',
      url: 'https://github.com/flashinfer-ai/flashinfer/pull/4137',
    },
    {
      title:
        'flashinfer-ai/flashinfer v0.6.16 release tag: the release-branch cherry-pick c46207c23 of PR #4137 (not in v0.6.16rc1)',
      url: 'https://github.com/flashinfer-ai/flashinfer/releases/tag/v0.6.16',
    },
    {
      title: 'vllm-project/vllm PR #49718: Add FlashInfer XQA decode support on SM12x',
      url: 'https://github.com/vllm-project/vllm/pull/49718',
    },
  ],
  docs: {
    problem:
      'On SM12x GPUs (RTX PRO 6000, RTX 50xx, DGX Spark) a sliding-window model with speculative decoding on FlashInfer ' +
      'verifies drafts against partly wrong attention: the first rows of each draft block miss keys at the start of their ' +
      'window. Accepted tokens can then differ from what the model would have produced without speculation.',
    exceptions:
      'A severity of warning, because vLLM reaches this kernel path only from PR #49718 on, and that change already ' +
      'requires flashinfer-python 0.6.16.post1, which contains the fix (the v0.6.16 tag already does): you are affected only with an older FlashInfer ' +
      'installed by hand next to such a vLLM. On SM90 vLLM refuses XQA speculative decode outright (NotImplementedError), ' +
      'which is loud, not silent.',
  },
});
