import { defineHazard } from '../hazard.js';
import { requestsUse } from '../conditions/request-time.js';
import { chunkedPrefill } from '../conditions/serving-features.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#53488: prompt_logprobs corrupted for some requests with multi-token MTP. */
export const FL034 = defineHazard({
  id: 'FL034',
  alias: 'mtp-prompt-logprobs',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'with MTP drafting more than one token and chunked prefill, prompt_logprobs come back wildly wrong for a subset of requests (HTTP 200, no warning)',
  mechanism:
    'Not established. An investigation (PR #53506) found that multi-module MTP (num_speculative_tokens > 1) is the only ' +
    'configuration where the scheduler reserves a prefill lookahead greater than one, a regime no test covered; a fix ' +
    'PR #53520 is proposed.',
  affected: { vllm: 'reported on 0.26.1rc1 nightlies and 0.27.2rc0; open (fix PR #53520 proposed)' },
  confidence: 'reported',
  conditions: [
    speculativeDecoding({ methods: ['mtp'], maxCleanQueryLen: 2 }),
    chunkedPrefill(),
    requestsUse({ name: 'prompt-logprobs-requested', what: 'requests ask for prompt_logprobs' }),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.26.1rc1.dev1102',
      record: 'reported on 0.26.1rc1.dev1102 and 0.27.2rc0; open',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'without MTP every request was scored correctly',
    },
    {
      id: 'one-draft-token',
      change: { set: { 'speculative_config.num_speculative_tokens': 1 } },
      inferred: true,
      why: 'one draft token keeps the prefill lookahead at 1, the regime outside the suspected path',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve nvidia/Qwen3.6-27B-NVFP4 --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      model: 'qwen3.6-27b-nvfp4',
      vllm: '0.27.2rc0',
      points: '--speculative-config',
      possibly: true,
    },
    clean: { command: 'vllm serve nvidia/Qwen3.6-27B-NVFP4', model: 'qwen3.6-27b-nvfp4', vllm: '0.27.2rc0' },
  },
  references: [
    {
      title:
        'vllm-project/vllm#53488: prompt_logprobs silently corrupted for some requests when MTP speculative decoding is enabled (Qwen3.5-family, chunked prefill)',
      url: 'https://github.com/vllm-project/vllm/issues/53488',
    },
    {
      title:
        'vllm-project/vllm PR #53506: Regression coverage for multi-module MTP prefill-lookahead chunking (open)',
      url: 'https://github.com/vllm-project/vllm/pull/53506',
    },
  ],
  docs: {
    problem:
      'Scoring a corpus with prompt_logprobs through /v1/completions gave a perplexity of 29.07 instead of 3.22 when MTP ' +
      '(k = 3) was on: a subset of requests got wildly wrong prompt logprobs, sometimes NaN (then HTTP 400).',
    exceptions:
      'Reported on Qwen3.8-27B hybrids (two checkpoints, two builds) on a GB10; whether attention-only models are affected ' +
      'is not established, so they are not excluded. Prompt logprobs are a request-time choice: "possibly affected".',
  },
});
