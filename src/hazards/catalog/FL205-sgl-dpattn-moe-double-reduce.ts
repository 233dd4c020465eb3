import { defineHazard } from '../hazard.js';
import { argIn } from '../conditions/sglang/conditions.js';
import { dpAttentionTpOne } from '../conditions/sglang/features.js';
import { modelIs } from '../conditions/sglang/model.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#37187, PR #37199 (research/interaction-bugs.md C7, variant a). */
export const FL205 = defineHazard({
  id: 'FL205',
  alias: 'sgl-dpattn-moe-double-reduce',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'GPT-OSS with DP attention, TP = DP and no all-to-all MoE backend on SGLang reduces the MoE output twice (×TP): GSM8K 0/128',
  mechanism:
    'The MoE block all-reduced over TP and DP-attention post-processing then reduce-scattered over the same group, scaling the MoE output by about TP while the residual stayed unscaled.',
  affected: { sglang: 'releases before PR #37199 (merged Aug 2026)' },
  confidence: 'confirmed',
  conditions: [
    modelIs('gpt-oss-model', 'a GPT-OSS model', {
      architectures: ['GptOssForCausalLM'],
      modelTypes: ['gpt_oss'],
      namePattern: /gpt-oss/i,
    }),
    dpAttentionTpOne(),
    argIn(
      'no-a2a-moe-backend',
      'moe_a2a_backend',
      ['none'],
      'no all-to-all MoE backend (--moe-a2a-backend none, the default)',
    ),
    sglangFixedByPr(37199, '2026-08', 'duplicate MoE reduction with DP attention'),
  ],
  locateAt: 'dp-attention-tp-one',
  remedies: [
    {
      id: 'no-dp-attention',
      change: { unset: 'enable_dp_attention' },
      why: 'the record’s workaround: without DP attention the MoE output is reduced once',
    },
    {
      id: 'a2a-moe-backend',
      change: { set: { moe_a2a_backend: 'deepep' } },
      why: 'the record’s other workaround: an all-to-all MoE backend skips the post-expert all-reduce',
    },
  ],
  nonRemedies: [
    {
      id: 'no-cuda-graph',
      change: { add: '--disable-cuda-graph' },
      why: 'toggling CUDA graphs alone did not recover accuracy in sglang#37187',
    },
    {
      id: 'no-radix-cache',
      change: { add: '--disable-radix-cache' },
      why: 'toggling the radix cache alone did not recover accuracy in sglang#37187',
    },
    {
      id: 'smaller-chunks',
      change: { set: { chunked_prefill_size: 4096 } },
      why: 'the chunk size made no difference in sglang#37187',
    },
  ],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp-size 4 --dp-size 4 --ep-size 4 --enable-dp-attention',
      model: 'sgl-gpt-oss-120b',
      sglang: '0.5.6.post2',
      points: '--enable-dp-attention',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp-size 4 --ep-size 4',
      model: 'sgl-gpt-oss-120b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#37187: GPT-OSS with DP attention enabled produces garbage output (GSM8K 0/128 vs 124/128)',
      url: 'https://github.com/sgl-project/sglang/issues/37187',
    },
    {
      title: 'sgl-project/sglang PR #37199: fix(gpt-oss): avoid duplicate MoE reduction with DP attention',
      url: 'https://github.com/sgl-project/sglang/pull/37199',
    },
  ],
  docs: {
    problem:
      'GPT-OSS-120B on TP4/DP4/EP4 with DP attention answers 0 of 128 GSM8K questions (124/128 without): repeated Harmony channel markers, empty answers, runaway generations — after a clean health check.',
  },
});
