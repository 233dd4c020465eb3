import { defineHazard } from '../hazard.js';
import { requestsUse } from '../conditions/request-time.js';
import { rawLogprobsMode } from '../conditions/runtime-switches.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #30846: raw logprobs under spec decoding came from logits already modified in place. */
export const FL019 = defineHazard({
  id: 'FL019',
  alias: 'specdec-raw-logprobs-modified-logits',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'speculative decoding returns "raw" logprobs computed from logits the sampling parameters had already modified in place (vLLM builds before PR #30846)',
  mechanism:
    'In raw logprobs/logits mode (vLLM’s default is raw_logprobs) the logits must be cloned before sampling parameters ' +
    'modify them in place. The rejection sampler did not clone them, so with speculative decoding the "raw" values were ' +
    'the modified ones. PR #30846 adds the clone.',
  affected: { vllm: 'before PR #30846 (opened 2025-12-17, merged); 0.23.1 and later contain it' },
  confidence: 'confirmed',
  conditions: [
    speculativeDecoding({}),
    rawLogprobsMode(),
    requestsUse({
      name: 'logprobs-with-logit-changes',
      what: 'requests ask for logprobs and set sampling parameters that change the logits (temperature, top-k/top-p, penalties)',
    }),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'PR #30846',
      containsFixFrom: {
        version: '0.23.1',
        why: 'PR #30846 was opened on 2025-12-17 and merged, and 0.23.1 release candidates were nightlies of 2026-07 (vllm#47847)',
      },
      record: 'fixed by PR #30846 (Dec 2025)',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.23.1' } },
      why: 'a release cut after PR #30846 merged',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the missing clone was in the rejection sampler only',
    },
    {
      id: 'processed-logprobs-mode',
      change: { set: { logprobs_mode: 'processed_logprobs' } },
      inferred: true,
      why: 'processed mode asks for the modified values, so what the sampler returns is what was asked for — if processed logprobs serve the purpose',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'`,
      vllm: '0.12.0',
      points: '--speculative-config',
      possibly: true,
    },
    clean: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'`,
      vllm: '0.23.1',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm PR #30846: Fix logprobs with spec decode and modified logits',
      url: 'https://github.com/vllm-project/vllm/pull/30846',
    },
  ],
  docs: {
    problem:
      'Clients that rely on raw logprobs (the default mode) — RL training that recomputes importance ratios, calibration, ' +
      'scoring — get values after temperature, top-k/top-p or penalties were applied, but only when speculative decoding is ' +
      'on. Text is unaffected.',
    exceptions:
      'Only requests that ask for logprobs and set logit-changing sampling parameters see it, which the launch cannot show: ' +
      'the finding is "possibly affected". Releases before 0.23.1 are unknown (the first release with PR #30846 is not established).',
  },
});
