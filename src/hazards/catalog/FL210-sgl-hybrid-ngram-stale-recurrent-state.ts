import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { speculative } from '../conditions/sglang/conditions.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #26351 (research/interaction-bugs.md B6, the SGLang side). */
export const FL210 = defineHazard({
  id: 'FL210',
  alias: 'sgl-hybrid-ngram-stale-recurrent-state',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'NGRAM speculative decoding on a hybrid GDN/Mamba model in SGLang keeps a stale recurrent state: repetition loops and drift from non-speculative greedy output',
  mechanism:
    'After NGRAM target verification the accepted per-request speculative states were not committed back to the persistent Mamba cache, so the next step started from a state missing the accepted tokens.',
  affected: { sglang: 'releases before PR #26351 (merged May 2026)' },
  confidence: 'confirmed',
  conditions: [
    hybridRecurrentModel(),
    speculative(['NGRAM']),
    sglangFixedByPr(26351, '2026-05', 'Mamba states not committed after NGRAM verify'),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative',
      change: { unset: 'speculative_algorithm' },
      why: 'without speculative decoding there is no verify step to commit',
    },
    {
      id: 'mtp-instead',
      change: { set: { speculative_algorithm: 'NEXTN' } },
      label: '--speculative-algorithm NEXTN (the model’s MTP head)',
      why: 'the record’s workaround: MTP/EAGLE draft every step and are not affected',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --speculative-algorithm NGRAM',
      model: 'sgl-qwen3.5-35b-a3b',
      sglang: '0.5.6.post2',
      points: '--speculative-algorithm',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B',
      model: 'sgl-qwen3.5-35b-a3b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #26351: commit Mamba states after NGRAM target verify',
      url: 'https://github.com/sgl-project/sglang/pull/26351',
    },
  ],
  docs: {
    problem:
      'Qwen3.5-family hybrid models with NGRAM speculation drift from their greedy output and fall into repetition loops that grow over a long decode.',
  },
});
