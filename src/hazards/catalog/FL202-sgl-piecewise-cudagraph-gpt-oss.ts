import { defineHazard } from '../hazard.js';
import { modelIs } from '../conditions/sglang/model.js';
import { piecewiseCudaGraph } from '../conditions/sglang/prefill-cuda-graph.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#17839, PR #18013 (research/interaction-bugs.md C4, the GPT-OSS variant). */
export const FL202 = defineHazard({
  id: 'FL202',
  alias: 'sgl-piecewise-cudagraph-gpt-oss',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'GPT-OSS with piecewise CUDA graphs on SGLang loses accuracy (GSM8K 0.745–0.80 against 0.855 without)',
  mechanism:
    'Piecewise CUDA-graph capture of GPT-OSS’s layers changed their numerics; PR #18013 fixed the GPT-OSS path.',
  affected: { sglang: 'releases before PR #18013 (merged Jan 2026) that have piecewise CUDA graphs' },
  confidence: 'confirmed',
  conditions: [
    modelIs('gpt-oss-model', 'a GPT-OSS model', {
      architectures: ['GptOssForCausalLM'],
      modelTypes: ['gpt_oss'],
      namePattern: /gpt-oss/i,
    }),
    piecewiseCudaGraph(),
    sglangFixedByPr(18013, '2026-01', 'GPT-OSS accuracy drop with piecewise CUDA graphs'),
  ],
  locateAt: 'piecewise-cuda-graph',
  remedies: [
    {
      id: 'no-piecewise-cuda-graph',
      change: { unset: 'enable_piecewise_cuda_graph' },
      why: 'the record’s workaround: without piecewise CUDA graphs the accuracy is the baseline’s',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp-size 2 --enable-piecewise-cuda-graph',
      model: 'sgl-gpt-oss-120b',
      sglang: '0.5.6.post2',
      points: '--enable-piecewise-cuda-graph',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp-size 2',
      model: 'sgl-gpt-oss-120b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#17839: enabling piecewise cuda graph would degrade the accuracy of gpt-oss-120b',
      url: 'https://github.com/sgl-project/sglang/issues/17839',
    },
    {
      title: 'sgl-project/sglang PR #18013: fix gpt-oss accuracy issue when enabling piecewise cuda graph',
      url: 'https://github.com/sgl-project/sglang/pull/18013',
    },
  ],
  docs: {
    problem:
      'gpt-oss-120b on TP 2 scores 0.745–0.80 on GSM8K with piecewise CUDA graphs and 0.855 without; answers stay fluent.',
    exceptions:
      'In releases after 0.5.6 piecewise CUDA graphs are on by default but SGLang turns them off for many models, so an SGLang main launch without --disable-piecewise-cuda-graph is "possibly affected".',
  },
});
