import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { contextCanExceed } from '../conditions/model.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#52873: MTP draft acceptance collapses to 0 % engine-wide on a GDN hybrid. */
export const FL022 = defineHazard({
  id: 'FL022',
  alias: 'gdn-mtp-acceptance-collapse',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'MTP on a Qwen3-Next-style GDN hybrid can drop draft acceptance to 0 % engine-wide after a long conversation, until restart: throughput collapses while the text stays right',
  mechanism:
    'Not established. The reporter saw acceptance fall to 0 % at a context of about 21k tokens with async scheduling on ' +
    'and about 32.5k with it off — reproducible per configuration, but not a fixed position — and stay at 0 % for new ' +
    'conversations until restart, which points at cumulative per-step accounting rather than a sequence position.',
  affected: { vllm: 'reported on 0.27.1; closed without an identified fix' },
  confidence: 'reported',
  conditions: [
    hybridRecurrentModel(),
    speculativeDecoding({ methods: ['mtp'] }),
    contextCanExceed(21000),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.27.1',
      lastReported: '0.27.1',
      fixedBy: 'an unidentified change (the issue was closed without naming one)',
      record: 'reported on 0.27.1; closed without an identified fix',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the collapse is in draft acceptance; without drafts there is nothing to accept',
    },
  ],
  nonRemedies: [
    {
      id: 'no-async-scheduling',
      change: { add: '--no-async-scheduling' },
      why: 'it only moved the collapse point, from about 21k to about 32.5k tokens of context',
    },
  ],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}'`,
      model: 'qwen3-next-80b-a3b',
      vllm: '0.27.1',
      points: '--speculative-config',
    },
    clean: {
      command: 'vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4',
      model: 'qwen3-next-80b-a3b',
      vllm: '0.27.1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#52873: Qwen3-Next GDN + MTP: crossing sequence position 32768 permanently kills draft acceptance engine-wide (0% until restart)',
      url: 'https://github.com/vllm-project/vllm/issues/52873',
    },
  ],
  docs: {
    problem:
      'After a long multi-turn conversation the MTP drafter stops being accepted at all, for every request on the server ' +
      '— including new conversations — until the server restarts. Output stays correct; only speculative-decoding ' +
      'metrics and throughput show it.',
    exceptions:
      'Reported on one model family and one release; the issue was closed without naming a fix, so other releases are ' +
      'unknown. A restart restores acceptance.',
  },
});
