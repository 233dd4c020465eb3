import { defineHazard } from '../hazard.js';
import type { Condition } from '../hazard.js';
import { sglArg } from '../conditions/sglang/args.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

const anySpeculation: Condition = {
  name: 'speculative-decoding',
  description: 'speculative decoding is on (any --speculative-algorithm)',
  check(d) {
    const v = sglArg(d, 'speculative_algorithm');
    return v.value == null
      ? { status: 'not-met', detail: 'no --speculative-algorithm', at: d.at }
      : { status: 'met', detail: `speculative decoding with ${String(v.value)}`, at: v.at };
  },
};

const penalties: Condition = {
  name: 'sampling-penalties',
  description:
    'requests are sampled with a frequency / presence / repetition penalty or min_new_tokens (set per request)',
  check: (d) => ({
    status: 'unknown',
    detail: 'penalties and min_new_tokens are request-time sampling parameters a launch cannot show',
    at: d.at,
  }),
};

/** sgl-project/sglang PR #33643 (open) (research/interaction-bugs.md B12, the SGLang side). */
export const FL225 = defineHazard({
  id: 'FL225',
  alias: 'sgl-specdec-penalties-weakened',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: under speculative decoding SGLang counts only the last committed token per step for penalties: frequency penalties act at ~1/L strength, min_new_tokens keeps EOS masked ~L× longer',
  mechanism:
    'cumulate_penalty_output_tokens is fed only the last committed token of each step, so with mean accept length L the accumulated counts are ~1/L of the real ones; min_new_tokens counts steps instead of tokens.',
  affected: { sglang: 'open: PR #33643 not merged' },
  confidence: 'reported',
  conditions: [
    anySpeculation,
    penalties,
    sglangOpen('penalties accumulate per step, not per accepted token'),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative',
      change: { unset: 'speculative_algorithm' },
      why: 'the record’s workaround for requests that set penalties',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B',
      model: 'sgl-llama-3.1-8b',
      points: '--speculative-algorithm',
      possibly: true,
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct',
      model: 'sgl-llama-3.1-8b',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang PR #33643: Accumulate sampling penalties per accepted token under speculative decoding',
      url: 'https://github.com/sgl-project/sglang/pull/33643',
    },
  ],
  docs: {
    problem:
      'Known from an open pull request: requests with a frequency or presence penalty repeat more than they would without speculation, and min_new_tokens holds EOS back longer than asked.',
    exceptions:
      'Only requests that set penalties or min_new_tokens are affected, which a launch cannot show: lint reports every speculative launch as "possibly affected".',
  },
});
