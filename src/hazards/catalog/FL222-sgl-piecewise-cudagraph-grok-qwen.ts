import { defineHazard } from '../hazard.js';
import { modelIs } from '../conditions/sglang/model.js';
import { piecewiseCudaGraph } from '../conditions/sglang/prefill-cuda-graph.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#13469, PR #23468 (research/interaction-bugs.md C4, the Grok-2 and Qwen3.5 variants). */
export const FL222 = defineHazard({
  id: 'FL222',
  alias: 'sgl-piecewise-cudagraph-grok-qwen',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: piecewise CUDA graphs on SGLang drop Grok-2’s accuracy (and return <pad> runs) and corrupt Qwen3.5 under the inductor compiler',
  mechanism: 'Not established; the GPT-OSS variant of the same feature was fixed separately (FL202).',
  affected: { sglang: 'open: Grok-2 WIP PR #13622, Qwen3.5/inductor PR #23468 closed' },
  confidence: 'reported',
  conditions: [
    modelIs('grok-or-qwen35-model', 'a Grok-2 or Qwen3.5 model', {
      architectures: [
        'Grok1ForCausalLM',
        'Qwen3_5ForConditionalGeneration',
        'Qwen3_5MoeForConditionalGeneration',
      ],
      modelTypes: ['grok-1', 'qwen3_5', 'qwen3_5_moe'],
      namePattern: /grok-2|qwen3\.5/i,
    }),
    piecewiseCudaGraph(),
    sglangOpen('piecewise CUDA graph accuracy on Grok-2 / Qwen3.5 (inductor)'),
  ],
  locateAt: 'piecewise-cuda-graph',
  remedies: [
    {
      id: 'no-piecewise-cuda-graph',
      change: { unset: 'enable_piecewise_cuda_graph' },
      why: 'the record’s workaround',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --enable-piecewise-cuda-graph --piecewise-cuda-graph-compiler inductor',
      model: 'sgl-qwen3.5-35b-a3b',
      sglang: '0.5.6.post2',
      points: '--enable-piecewise-cuda-graph',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B',
      model: 'sgl-qwen3.5-35b-a3b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang#13469: Grok2 Piecewise CUDA Graph Accuracy Drop',
      url: 'https://github.com/sgl-project/sglang/issues/13469',
    },
    {
      title:
        'sgl-project/sglang PR #23468: fix accuracy issue when run qwen3.5 and enable pcg and set piecewise-cuda-graph-compiler for inductor',
      url: 'https://github.com/sgl-project/sglang/pull/23468',
    },
  ],
  docs: {
    problem:
      'Known from user reports: Grok-2 FP8 scores 0.8 against 0.9 on GSM8K and its second request returns <pad> runs; Qwen3.5-397B answers wrongly with the inductor piecewise compiler (the eager compiler is correct).',
  },
});
