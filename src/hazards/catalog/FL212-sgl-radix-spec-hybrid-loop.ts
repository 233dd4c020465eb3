import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { gpuFamily } from '../conditions/gpu.js';
import { argIn, notDisabled, speculative } from '../conditions/sglang/conditions.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#36537, PR #36806 (research/interaction-bugs.md C10, field-2026-12.md S7). */
export const FL212 = defineHazard({
  id: 'FL212',
  alias: 'sgl-radix-spec-hybrid-loop',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'a hybrid model with NEXTN speculation and the radix cache’s eager Mamba buffer on SM12x loops on token id 0 once the KV cache fills (92 % of samples at KV ≥ 0.6)',
  mechanism:
    'The Mamba/GDN state is materialised eagerly before the accepted count is known and LRU eviction recycles the node, so draft and target desynchronise; ' +
    'PR #36806 routed exact SM120 to FlashInfer sparse decode and found SM121 corrupting at long context too, excluding it from that path.',
  affected: { sglang: 'releases before PR #36806 (merged 2026-08-28)' },
  confidence: 'confirmed',
  conditions: [
    hybridRecurrentModel(),
    speculative(['EAGLE', 'EAGLE3']),
    notDisabled(
      'radix-cache',
      'disable_radix_cache',
      'the radix (prefix) cache is on (no --disable-radix-cache)',
    ),
    argIn(
      'eager-mamba-radix-buffer',
      'mamba_scheduler_strategy',
      ['auto', 'extra_buffer'],
      'the Mamba state is buffered eagerly for the radix cache (extra_buffer, chosen under auto; not extra_buffer_lazy)',
    ),
    gpuFamily(120),
    sglangFixedByPr(36806, '2026-08-28', 'hybrid NEXTN + radix cache loops on token 0 on SM12x'),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'lazy-mamba-radix-buffer',
      change: { set: { mamba_scheduler_strategy: 'extra_buffer_lazy' } },
      why: 'the record’s workaround keeps the radix cache: 0 % broken',
    },
    {
      id: 'no-radix-cache',
      change: { add: '--disable-radix-cache' },
      why: 'the record’s other workaround (−27 % single-stream throughput)',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --speculative-algorithm NEXTN --mamba-scheduler-strategy extra_buffer',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      model: 'sgl-qwen3.5-35b-a3b',
      sglang: '0.5.6.post2',
      points: '--speculative-algorithm',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --speculative-algorithm NEXTN --mamba-scheduler-strategy extra_buffer --disable-radix-cache',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      model: 'sgl-qwen3.5-35b-a3b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#36537: Qwen3.8-Flash-Next thinking + qwen3_coder tool parser loops on token ID 0',
      url: 'https://github.com/sgl-project/sglang/issues/36537',
    },
    {
      title: 'sgl-project/sglang PR #36806: fix(qsa): route exact SM120 to FlashInfer sparse decode',
      url: 'https://github.com/sgl-project/sglang/pull/36806',
    },
  ],
  docs: {
    problem:
      'Generations loop on token id 0 once the KV cache is more than about 60 % full: tool calls and answers break while the server reports nothing.',
    exceptions:
      'The report is on Qwen3.8-Flash-Next; lint flags any hybrid GDN/Mamba model with the same launch. `extra_buffer_lazy` is newer than faultline’s newest flag table, which notes it as unrecognized and still reads it.',
  },
});
