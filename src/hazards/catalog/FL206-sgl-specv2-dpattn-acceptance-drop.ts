import { defineHazard } from '../hazard.js';
import { envIs, speculative, switchOn } from '../conditions/sglang/conditions.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#16274, PR #16310 (research/interaction-bugs.md C8). */
export const FL206 = defineHazard({
  id: 'FL206',
  alias: 'sgl-specv2-dpattn-acceptance-drop',
  engines: ['sglang'],
  // Acceptance (and so throughput) collapses silently; the output text itself is not reported wrong.
  severity: 'warning',
  summary:
    'spec v2 (overlap) EAGLE with DP attention on SGLang drafts from partial MLP results: accept length 2.35 → 1.48',
  mechanism:
    'num_tokens_for_logprob_per_batch=1 in draft-extend made the DP-attention metadata count 4 instead of 12 local tokens, so the MLP sync processed only part of the tokens.',
  affected: { sglang: 'releases with spec v2 before PR #16310 (merged Jan 2026)' },
  confidence: 'confirmed',
  conditions: [
    speculative(['EAGLE', 'EAGLE3']),
    envIs(
      'spec-v2',
      'SGLANG_ENABLE_SPEC_V2',
      ['1', 'True', 'true'],
      'the overlap-scheduled spec v2 path is on (SGLANG_ENABLE_SPEC_V2)',
    ),
    switchOn('dp-attention', 'enable_dp_attention', 'DP attention is on (--enable-dp-attention)'),
    sglangFixedByPr(16310, '2026-01', 'spec v2 acceptance drop with DP attention'),
  ],
  locateAt: 'dp-attention',
  remedies: [
    { id: 'no-dp-attention', change: { unset: 'enable_dp_attention' }, why: 'the record’s workaround' },
    {
      id: 'spec-v1',
      change: { env: { SGLANG_ENABLE_SPEC_V2: 'False' } },
      why: 'the record’s other workaround: spec v1 has no such metadata path',
    },
  ],
  nonRemedies: [
    {
      id: 'other-chunk-size',
      change: { set: { chunked_prefill_size: 16384 } },
      why: 'the drop was independent of the chunked-prefill size',
    },
  ],
  examples: {
    failing: {
      command:
        'SGLANG_ENABLE_SPEC_V2=True python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp-size 4 --dp-size 4 --enable-dp-attention --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4',
      sglang: '0.5.6.post2',
      points: '--enable-dp-attention',
    },
    clean: {
      command:
        'SGLANG_ENABLE_SPEC_V2=True python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp-size 4 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#16274: SPEC_V2 EAGLE Speculative Decoding Accept Length Degraded with DP Attention on GB300',
      url: 'https://github.com/sgl-project/sglang/issues/16274',
    },
    {
      title: 'sgl-project/sglang PR #16310: Fix Acclen drop when enabling DP Attention for Spec-Overlap',
      url: 'https://github.com/sgl-project/sglang/pull/16310',
    },
  ],
  docs: {
    problem:
      'With spec v2 and DP attention (GB300, TP4 + DP4) the average accept length falls from 2.35 to 1.48 and the accept rate from 0.79 to 0.49: throughput drops, nothing is logged.',
  },
});
