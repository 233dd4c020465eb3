import { defineHazard } from '../hazard.js';
import type { Condition } from '../hazard.js';
import { notDisabled } from '../conditions/sglang/conditions.js';
import { sglArg } from '../conditions/sglang/args.js';
import { moeModel } from '../conditions/sglang/features.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

const lora: Condition = {
  name: 'lora-adapters',
  description: 'LoRA adapters are served (--enable-lora or --lora-paths)',
  check(d) {
    const paths = sglArg(d, 'lora_paths');
    if (Array.isArray(paths.value) && paths.value.length > 0)
      return { status: 'met', detail: `--lora-paths ${paths.value.length} adapter(s)`, at: paths.at };
    const on = sglArg(d, 'enable_lora');
    return on.value === true
      ? { status: 'met', detail: '--enable-lora', at: on.at }
      : { status: 'not-met', detail: 'no LoRA adapters', at: d.at };
  },
};

/** sgl-project/sglang#26930, #29157, PR #31525 (research/interaction-bugs.md C3). */
export const FL221 = defineHazard({
  id: 'FL221',
  alias: 'sgl-lora-cudagraph-moe',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: LoRA adapters on a mixture-of-experts model with CUDA graphs on SGLang start coherent and degrade into garbage (repeated “!”) after ~100 tokens',
  mechanism:
    'Under CUDA graphs the MoE-LoRA path used routing buffers sized for another batch (PR #31525: per-rank under DP attention while MoE layers run on the gathered token count).',
  affected: { sglang: 'open: both issues closed as inactive without a fix, PR #31525 open' },
  confidence: 'reported',
  conditions: [
    lora,
    moeModel(),
    notDisabled('cuda-graph', 'disable_cuda_graph', 'CUDA graphs are on (no --disable-cuda-graph)'),
    sglangOpen('MoE LoRA under CUDA graphs'),
  ],
  locateAt: 'lora-adapters',
  remedies: [
    {
      id: 'no-cuda-graph',
      change: { add: '--disable-cuda-graph' },
      why: 'the record’s workaround (≈10× slower in #26930)',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --enable-lora --lora-paths adapter=/adapters/a',
      model: 'sgl-qwen3-30b-a3b',
      points: '--lora-paths',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B',
      model: 'sgl-qwen3-30b-a3b',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#26930: LoRA adapter on compressed-tensors W4A16 quantized MoE model produces garbled output with CUDA graph enabled',
      url: 'https://github.com/sgl-project/sglang/issues/26930',
    },
    {
      title:
        'sgl-project/sglang#29157: CUDA graph causes garbled outputs with concurrent multi-LoRA decoding on GLM-5.1-FP8',
      url: 'https://github.com/sgl-project/sglang/issues/29157',
    },
    {
      title: 'sgl-project/sglang PR #31525: MoE-LoRA CUDA-graph fixes under DP attention',
      url: 'https://github.com/sgl-project/sglang/pull/31525',
    },
  ],
  docs: {
    problem:
      'Known from user reports: LoRA output on an MoE model is fine for ~100 tokens, then garbage, deterministically at temperature 0; with several concurrent adapters most requests collapse into repeated “!”.',
    exceptions: '`--record-nolora-graph` was reported not to help (#26930).',
  },
});
