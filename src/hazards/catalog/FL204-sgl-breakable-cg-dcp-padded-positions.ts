import { defineHazard } from '../hazard.js';
import { intAbove, switchOn } from '../conditions/sglang/conditions.js';
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
    switchOn(
      'breakable-cuda-graph',
      'enable_breakable_cuda_graph',
      'breakable CUDA graphs are on (--enable-breakable-cuda-graph)',
    ),
    intAbove('decode-context-parallel', 'dcp_size', 1, 'decode context parallelism is on (--dcp-size > 1)'),
    sglangFixedByPr(33253, '2026-08', 'padded positions in breakable CUDA-graph attention under DCP'),
  ],
  locateAt: 'breakable-cuda-graph',
  remedies: [
    {
      id: 'no-breakable-cuda-graph',
      change: { unset: 'enable_breakable_cuda_graph' },
      why: 'the record’s workaround: without breakable graphs no padded positions reach the DCP KV assignment',
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
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 16 --dcp-size 4 --kv-cache-dtype fp8_e4m3',
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
      '--dcp-size is newer than faultline’s newest SGLang flag table (main, 2026-06): lint notes it as unrecognized and still reads its value. Which release first contains PR #33253 is not established.',
  },
});
