import { defineHazard } from '../hazard.js';
import { attentionBackend, notDisabled, switchOn } from '../conditions/sglang/conditions.js';
import { affectedVersion } from '../conditions/versions.js';

/** sgl-project/sglang PR #6998 (research/interaction-bugs.md C5); first in 0.4.7 (version.py history). */
export const FL203 = defineHazard({
  id: 'FL203',
  alias: 'sgl-cutlass-mla-cudagraph-dpattn',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'the cutlass_mla backend with DP attention and CUDA graphs on SGLang before 0.4.7 gives near-zero accuracy (DeepSeek-V3 GSM8K 0.060 against 0.917)',
  mechanism:
    'Under DP attention the CUDA-graph-captured cutlass_mla decode read per-rank metadata for the wrong batch layout; PR #6998 fixed it.',
  affected: { sglang: 'before 0.4.7 (PR #6998, merged 2025-06-09)' },
  confidence: 'confirmed',
  conditions: [
    attentionBackend(
      'cutlass-mla-backend',
      ['cutlass_mla'],
      ['decode'],
      'decode runs on the cutlass_mla backend',
    ),
    switchOn('dp-attention', 'enable_dp_attention', 'DP attention is on (--enable-dp-attention)'),
    notDisabled('cuda-graph', 'disable_cuda_graph', 'CUDA graphs are on (no --disable-cuda-graph)'),
    affectedVersion({
      pkg: 'sglang',
      fixed: '0.4.7',
      fixedBy: 'PR #6998',
      record: 'cutlass_mla under DP attention and CUDA graphs until PR #6998',
    }),
  ],
  locateAt: 'cutlass-mla-backend',
  remedies: [
    {
      id: 'no-cuda-graph',
      change: { add: '--disable-cuda-graph' },
      why: 'the record’s control: without CUDA graphs GSM8K is 0.917',
    },
    {
      id: 'triton-mla',
      change: { set: { attention_backend: 'triton' } },
      why: 'the record’s baseline MLA backend',
    },
    { id: 'upgrade', change: { versions: { sglang: '0.4.7' } }, why: '0.4.7 contains PR #6998' },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 --tp-size 8 --enable-dp-attention --dp-size 8 --attention-backend cutlass_mla',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v3',
      sglang: '0.4.6.post5',
      points: '--attention-backend',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 --tp-size 8 --enable-dp-attention --dp-size 8 --attention-backend cutlass_mla',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v3',
      sglang: '0.4.7.post1',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #6998: Fix cutlass MLA gets almost zero accuracy',
      url: 'https://github.com/sgl-project/sglang/pull/6998',
    },
  ],
  docs: {
    problem:
      'DeepSeek-V3 on 8 GPUs with DP attention and cutlass_mla answers almost nothing right (GSM8K 0.060) while the server looks healthy; without CUDA graphs it scores 0.917.',
  },
});
