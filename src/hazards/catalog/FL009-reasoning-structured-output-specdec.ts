import { defineHazard } from '../hazard.js';
import { constrainedOutput, reasoningParser } from '../conditions/parsers.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#43388 and siblings: the reasoning-end marker inside an accepted draft block. */
export const FL009 = defineHazard({
  id: 'FL009',
  alias: 'reasoning-structured-output-specdec',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'structured output or tool calling with a reasoning parser and speculative decoding can leave the grammar unenforced when the end-of-thinking marker lands inside an accepted draft block',
  mechanism:
    'The grammar is switched on when the reasoning parser sees the end of thinking (`</think>` or a Harmony marker). With ' +
    'speculative decoding several tokens are accepted at once; when the marker is among them, the tokens after it were ' +
    'sampled with the unconstrained in-reasoning mask, the grammar was advanced one token late, or a boundary token ' +
    'reached the acceptor. Several of these paths were fixed (PR #44297, PR #44993); others are open.',
  affected: { vllm: '2026 H1 releases; partially fixed (PR #44297, PR #44993), remaining variants open' },
  confidence: 'confirmed',
  conditions: [
    reasoningParser(),
    speculativeDecoding({}),
    constrainedOutput(),
    affectedVersion({ pkg: 'vllm', record: 'partially fixed; PR #43424 and PR #52452 still open' }),
  ],
  locateAt: 'reasoning-parser',
  remedies: [
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      label: 'drop --speculative-config (at least for structured-output traffic)',
      why: 'one token per step cannot skip over the boundary',
    },
    {
      id: 'no-reasoning-parser',
      change: { unset: 'reasoning_parser' },
      label: 'drop --reasoning-parser (or disable thinking)',
      why: 'no reasoning boundary, so the grammar applies from the first token',
    },
  ],
  nonRemedies: [
    {
      id: 'no-async-scheduling',
      change: { add: '--no-async-scheduling' },
      why: 'the boundary defects were reported with and without async scheduling',
    },
  ],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3.5-35B-A3B --reasoning-parser qwen3 --enable-auto-tool-choice --tool-call-parser qwen3_coder --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      points: '--reasoning-parser',
    },
    clean: {
      command:
        'vllm serve Qwen/Qwen3.5-35B-A3B --reasoning-parser qwen3 --enable-auto-tool-choice --tool-call-parser qwen3_coder',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#43388: json_object structured output is not enforced after Qwen thinking (async scheduling + spec decode)',
      url: 'https://github.com/vllm-project/vllm/issues/43388',
    },
    {
      title:
        'vllm-project/vllm PR #44297: Constrain bitmask and trim grammar advance at the reasoning boundary',
      url: 'https://github.com/vllm-project/vllm/pull/44297',
    },
    {
      title: 'vllm-project/vllm PR #44993: Advance grammar across reasoning boundary',
      url: 'https://github.com/vllm-project/vllm/pull/44993',
    },
    {
      title: 'vllm-project/vllm PR #52452: Validate accepted blocks before commit (open)',
      url: 'https://github.com/vllm-project/vllm/pull/52452',
    },
  ],
  docs: {
    problem:
      'A thinking model (Qwen3/3.5, gpt-oss) behind a reasoning parser, with MTP or EAGLE drafting, returns output that ' +
      'ignores the requested JSON schema or tool-call grammar: garbage before the JSON (`chunk_0{…}`), a doubled `{{`, ' +
      'or invalid JSON — with HTTP 200. With strict tool calling, about 40 % of runs instead ended in HTTP 500.',
    exceptions:
      'A severity of warning: the launch cannot tell whether clients ask for structured output (unless tool calling is ' +
      'enabled), and some variants are fixed in recent releases. Which release contains which fix is not established.',
  },
});
