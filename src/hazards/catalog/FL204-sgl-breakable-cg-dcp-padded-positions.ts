import { defineHazard } from '../hazard.js';
import { intAbove } from '../conditions/sglang/conditions.js';
import { breakableCudaGraph } from '../conditions/sglang/prefill-cuda-graph.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #33253 (research/interaction-bugs.md C6). */
export const FL204 = defineHazard({
  id: 'FL204',
  alias: 'sgl-breakable-cg-dcp-padded-positions',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'breakable CUDA graphs with decode context parallelism on SGLang corrupt the KV cache: padded positions claim real tokens’ KV slots',
  mechanism:
    'The breakable-graph attention wrapper narrowed Q/K/V and cache locations to the real token count but passed the padded positions; ' +
    'decode context parallelism assigns KV ownership by position, so the padding tokens competed with real tokens for physical KV slots.',
  affected: { sglang: 'releases with breakable CUDA graphs and DCP before PR #33253 (merged Aug 2026)' },
  confidence: 'confirmed',
  conditions: [
    breakableCudaGraph(),
    intAbove('decode-context-parallel', 'dcp_size', 1, 'decode context parallelism is on (--dcp-size > 1)'),
    sglangFixedByPr(33253, '2026-08', 'padded positions in breakable CUDA-graph attention under DCP'),
  ],
  locateAt: 'breakable-cuda-graph',
  remedies: [
    {
      id: 'no-breakable-cuda-graph',
      change: { set: { cuda_graph_backend_prefill: 'disabled' } },
      why: 'the record’s workaround: without breakable graphs no padded positions reach the DCP KV assignment. Dropping --enable-breakable-cuda-graph is not enough where breakable is SGLang’s own CUDA prefill default (0.5.18); naming the backend settles it',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 16 --dcp-size 4 --kv-cache-dtype fp8_e4m3 --enable-breakable-cuda-graph',
      points: '--enable-breakable-cuda-graph',
      possibly: true,
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 16 --dcp-size 4 --kv-cache-dtype fp8_e4m3 --cuda-graph-backend-prefill tc_piecewise',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #33253: Fix padded positions in breakable CUDA Graph attention',
      url: 'https://github.com/sgl-project/sglang/pull/33253',
    },
  ],
  docs: {
    problem:
      'With breakable CUDA graphs and DCP 4 (validated on Qwen3.5-397B-A17B FP8, TP 16, FP8 KV) the KV cache is silently overwritten: answers degrade with no error.',
    exceptions:
      'DCP (--dcp-size) exists from SGLang 0.5.15. A launch that names no prefill CUDA-graph backend is possibly affected: SGLang picks the backend itself (breakable is its CUDA default at 0.5.18) and turns it off for launches it finds incompatible. Which release first contains PR #33253 is not established.',
  },
});
