import { defineHazard } from '../hazard.js';
import { argIn, switchOn } from '../conditions/sglang/conditions.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #22876 (closed) (research/interaction-bugs.md C11). */
export const FL224 = defineHazard({
  id: 'FL224',
  alias: 'sgl-mixed-chunk-mamba-extra-buffer',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: --enable-mixed-chunk with --mamba-scheduler-strategy extra_buffer under concurrency drops accuracy (GSM8K 0.938 → 0.876)',
  mechanism: 'Not established; PR #22876 proposed refusing the combination with a ValueError.',
  affected: { sglang: 'open: PR #22876 closed without merge' },
  confidence: 'reported',
  conditions: [
    switchOn(
      'mixed-chunk',
      'enable_mixed_chunk',
      'mixed chunked prefill is on (--enable-mixed-chunk; SGLang turns it off itself under EAGLE-style speculation)',
    ),
    argIn(
      'mamba-extra-buffer',
      'mamba_scheduler_strategy',
      ['extra_buffer'],
      'the Mamba scheduler keeps an extra buffer (--mamba-scheduler-strategy extra_buffer)',
    ),
    sglangOpen('mixed chunk + Mamba extra_buffer'),
  ],
  locateAt: 'mixed-chunk',
  remedies: [
    { id: 'no-mixed-chunk', change: { unset: 'enable_mixed_chunk' }, why: 'the record’s workaround' },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --tp-size 2 --enable-mixed-chunk --mamba-scheduler-strategy extra_buffer',
      model: 'sgl-qwen3.5-35b-a3b',
      points: '--enable-mixed-chunk',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --tp-size 2 --enable-mixed-chunk --mamba-scheduler-strategy extra_buffer --speculative-algorithm NEXTN',
      model: 'sgl-qwen3.5-35b-a3b',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang PR #22876: Raise ValueError when --enable-mixed-chunk and --mamba-scheduler-strategy extra_buffer cause accuracy drop',
      url: 'https://github.com/sgl-project/sglang/pull/22876',
    },
  ],
  docs: {
    problem:
      'Known from one report: Qwen3.5-35B-A3B on 2×A100 at concurrency 16 scores 0.876 on GSM8K against 0.938; single requests are normal.',
    exceptions:
      'With NEXTN / EAGLE speculation SGLang turns mixed chunked prefill off itself (the clean example), which lint applies before checking.',
  },
});
