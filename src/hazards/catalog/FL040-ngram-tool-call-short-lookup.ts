import { defineHazard } from '../hazard.js';
import { modelTypeIs } from '../conditions/model-type.js';
import { ngramShortLookup } from '../conditions/ngram-lookup.js';
import { constrainedOutput } from '../conditions/parsers.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#40875: n-gram drafting with a short minimum match corrupts Qwen3 tool calls. */
export const FL040 = defineHazard({
  id: 'FL040',
  alias: 'ngram-tool-call-short-lookup',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'n-gram speculative decoding with prompt_lookup_min below 8 corrupts about half of the tool calls of Qwen3-class models (wrong-token cascades in the tool-call format)',
  mechanism:
    'Per the reporter, a rejection-sampling artifact separate from the GDN state corruption of FL014: with short ' +
    'minimum matches the n-gram proposer drafts tool-call syntax from the prompt, and accepted drafts produce cascades ' +
    'such as "parameter=parameter=name". It persisted with the four related upstream fixes applied.',
  affected: { vllm: 'reported on 0.19.2rc1.dev205; open' },
  confidence: 'reported',
  conditions: [
    ngramShortLookup({ cleanFrom: 8 }),
    constrainedOutput(),
    modelTypeIs({ name: 'qwen3-class-model', family: 'a Qwen3-class model', prefixes: ['qwen3'] }),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.19.2rc1.dev205',
      record: 'reported on 0.19.2rc1.dev205; open',
    }),
  ],
  locateAt: 'ngram-short-lookup',
  remedies: [
    {
      id: 'lookup-min-8',
      change: { set: { 'speculative_config.prompt_lookup_min': 8 } },
      why: 'the config-only workaround on the record: 100 % clean tool calls (30 of 30) where the default gave about 50 %',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'no drafts, no draft artifacts',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3.5-35B-A3B --enable-auto-tool-choice --tool-call-parser qwen3_coder --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 2, "prompt_lookup_max": 12}'`,
      model: 'qwen3.5-35b-a3b',
      vllm: '0.19.2rc1.dev205',
      points: '--speculative-config',
    },
    clean: {
      command: `vllm serve Qwen/Qwen3.5-35B-A3B --enable-auto-tool-choice --tool-call-parser qwen3_coder --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 8, "prompt_lookup_max": 12}'`,
      model: 'qwen3.5-35b-a3b',
      vllm: '0.19.2rc1.dev205',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#40875: ngram speculative decoding default prompt_lookup_min=2 causes tool-call output corruption on Qwen3-class models with structured output',
      url: 'https://github.com/vllm-project/vllm/issues/40875',
    },
  ],
  docs: {
    problem:
      'With tool_choice auto and a tools array, about half of the tool calls come back malformed (`<tool_call>\\n<<tool_code>`, ' +
      '`parameter=parameter=name`) instead of the chat template’s format. Draft acceptance looks healthy.',
    exceptions:
      'The reporter’s model is a hybrid (FL014 may apply too). An unset prompt_lookup_min is unknown: its default is not ' +
      'established here.',
  },
});
