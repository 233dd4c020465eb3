import { defineHazard } from '../hazard.js';
import { requestsUse } from '../conditions/request-time.js';
import { chunkedPrefill } from '../conditions/serving-features.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #29216: logprobs offsets with spec decoding and chunked prefill. */
export const FL018 = defineHazard({
  id: 'FL018',
  alias: 'specdec-chunked-prefill-logprobs',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'speculative decoding with chunked prefill returns logprobs from the wrong offsets (vLLM builds between PR #26060 and PR #29216): the text is right, the logprobs are not',
  mechanism:
    'When a prefill is chunked, its intermediate chunks sample a token that is discarded. The logprobs path counted those ' +
    'discards when it computed offsets into the logprobs tensors, so each returned logprobs list could belong to another ' +
    'position. The mistake came with PR #26060; PR #29216 (merged 2025-11-22) fixed the offsets.',
  affected: { vllm: 'from PR #26060 until PR #29216 (merged 2025-11-22); 0.23.1 and later contain the fix' },
  confidence: 'confirmed',
  conditions: [
    speculativeDecoding({}),
    chunkedPrefill(),
    requestsUse({ name: 'logprobs-requested', what: 'requests ask for logprobs' }),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'PR #29216',
      containsFixFrom: {
        version: '0.23.1',
        why: 'PR #29216 merged on 2025-11-22, and 0.23.1 release candidates were nightlies of 2026-07 (vllm#47847)',
      },
      record: 'a regression from PR #26060, fixed by PR #29216 (2025-11-22)',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.23.1' } },
      why: 'a release cut after PR #29216 merged',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the offsets were wrong only on the speculative path',
    },
    {
      id: 'no-chunked-prefill',
      change: { add: '--no-enable-chunked-prefill' },
      inferred: true,
      why: 'without chunked prefill there are no discarded intermediate samples to miscount',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'`,
      vllm: '0.11.1',
      points: '--speculative-config',
      possibly: true,
    },
    clean: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'`,
      vllm: '0.23.1',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm PR #29216: Fix returned logprobs with spec decode + prefill chunking',
      url: 'https://github.com/vllm-project/vllm/pull/29216',
    },
    {
      title: 'vllm-project/vllm PR #26060 (the change that introduced the offset mistake)',
      url: 'https://github.com/vllm-project/vllm/pull/26060',
    },
  ],
  docs: {
    problem:
      'Clients that score or inspect logprobs (evaluation harnesses, RL rollouts, confidence filters) get logprobs that ' +
      'do not belong to the returned tokens whenever speculative decoding and chunked prefill are both on. Generated text ' +
      'is unaffected, so nothing looks wrong.',
    exceptions:
      'Whether requests ask for logprobs is a request-time choice, so the finding is always "possibly affected". Releases ' +
      'before 0.23.1 are unknown: when PR #26060 and PR #29216 first shipped is not established.',
  },
});
