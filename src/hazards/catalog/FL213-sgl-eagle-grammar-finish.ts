import { defineHazard } from '../hazard.js';
import { speculative } from '../conditions/sglang/conditions.js';
import { grammarBackend } from '../conditions/sglang/features.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#9187, PR #21723 (research/field-2026-12.md S8). */
export const FL213 = defineHazard({
  id: 'FL213',
  alias: 'sgl-eagle-grammar-finish',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'EAGLE speculative decoding with grammar-constrained (structured) output on SGLang misses the grammar’s finish: generations stall or run on past the end of the JSON',
  mechanism:
    'The EAGLE verify path did not apply the grammar’s termination to accepted draft tokens, so a request whose grammar had finished kept generating.',
  affected: {
    sglang:
      'releases before PR #21723 (merged 2026-04-14); sglang#9187 (stuck structured outputs) is still open',
  },
  confidence: 'confirmed',
  conditions: [
    speculative(['EAGLE', 'EAGLE3']),
    grammarBackend(),
    sglangFixedByPr(21723, '2026-04-14', 'EAGLE misses the grammar-based finish'),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative',
      change: { unset: 'speculative_algorithm' },
      inferred: true,
      why: 'without EAGLE the grammar finishes the request as usual',
    },
  ],
  nonRemedies: [
    {
      id: 'no-grammar-backend',
      change: { set: { grammar_backend: 'none' } },
      avoidsBy: 'structured-output',
      why: 'turns structured output off for every request: not a fix when requests need it',
    },
  ],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B',
      model: 'sgl-llama-3.1-8b',
      sglang: '0.5.6.post2',
      points: '--speculative-algorithm',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct',
      model: 'sgl-llama-3.1-8b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang#9187: EAGLE speculative decoding causes Structured Outputs to get stuck',
      url: 'https://github.com/sgl-project/sglang/issues/9187',
    },
    {
      title: 'sgl-project/sglang PR #21723: Fix EAGLE speculative decoding missing grammar-based finish',
      url: 'https://github.com/sgl-project/sglang/pull/21723',
    },
  ],
  docs: {
    problem:
      'JSON-schema or regex-constrained requests to an EAGLE server stall or keep generating after the structure is complete.',
    exceptions:
      'Only requests that ask for structured output are affected; a launch cannot show whether any will.',
  },
});
