import { defineHazard } from '../hazard.js';
import { concurrentRequests } from '../conditions/concurrency.js';
import { asyncScheduling } from '../conditions/scheduling.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#46669: MTP/DFlash + async scheduling + concurrency → some requests turn to garbage. */
export const FL005 = defineHazard({
  id: 'FL005',
  alias: 'specdec-async-scheduling-garbage',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'MTP or DFlash speculative decoding with async scheduling under concurrent load turns some requests into garbage mid-generation (root cause open)',
  mechanism:
    'Not established. The issue was filed by vLLM spec-decode maintainers and stays open. Related fixes in the same feature ' +
    'pair concern async speculative placeholders: stale -1 placeholders that outlive their step and are later fed to the ' +
    'model as draft tokens (PR #46899, closed), and an underflow of num_output_placeholders (PR #46066, merged).',
  affected: { vllm: 'vLLM main, June 2026; open' },
  confidence: 'confirmed',
  conditions: [
    speculativeDecoding({ methods: ['mtp', 'dflash'] }),
    asyncScheduling('on'),
    concurrentRequests(),
    affectedVersion({ pkg: 'vllm', record: 'reported on main (June 2026); open, no fix' }),
  ],
  locateAt: 'async-scheduling',
  remedies: [
    {
      id: 'no-async-scheduling',
      change: { add: '--no-async-scheduling' },
      why: 'the workaround reported in vllm#46669',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the corruption was only seen with MTP or DFlash drafting',
    },
  ],
  nonRemedies: [
    { id: 'enforce-eager', change: { add: '--enforce-eager' }, why: 'reproduced with and without it' },
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'reproduced with and without prefix caching',
    },
    {
      id: 'switch-mtp-dflash',
      change: { set: { 'speculative_config.method': 'dflash' } },
      label: 'switching MTP ↔ DFlash',
      why: 'both drafters reproduce it',
    },
  ],
  examples: {
    failing: {
      command: `vllm serve XiaomiMiMo/MiMo-V2.5-Pro --tensor-parallel-size 8 --async-scheduling --speculative-config '{"method": "mtp", "num_speculative_tokens": 7}'`,
      points: '--async-scheduling',
    },
    clean: {
      command: `vllm serve XiaomiMiMo/MiMo-V2.5-Pro --tensor-parallel-size 8 --no-async-scheduling --speculative-config '{"method": "mtp", "num_speculative_tokens": 7}'`,
    },
  },
  references: [
    {
      title: 'vllm-project/vllm#46669: MiMo V2.5-Pro Bad Outputs with specdec and async scheduling',
      url: 'https://github.com/vllm-project/vllm/issues/46669',
    },
    {
      title: 'vllm-project/vllm PR #46899: clear stale async speculative placeholders (closed)',
      url: 'https://github.com/vllm-project/vllm/pull/46899',
    },
    {
      title:
        'vllm-project/vllm PR #46066: Fix num_output_placeholders underflow with async scheduling + spec decode',
      url: 'https://github.com/vllm-project/vllm/pull/46066',
    },
  ],
  docs: {
    problem:
      'Under concurrent load (32 concurrent requests, temperature 1.0 in the report) most responses are fine but some ' +
      'degrade into garbage partway through. Seen with MiMo-V2.5-Pro (TP 8) and 7 draft tokens on B300 and GB200, with FP4 ' +
      'and FP8 checkpoints.',
    exceptions:
      'A severity of warning: the record has one model family and no root cause, so other models may or may not be ' +
      'affected. Whether async scheduling is on by default depends on the vLLM release; set the flag explicitly to get a ' +
      'definite answer. vLLM disables async scheduling by itself for some speculative methods. Switching between FP4 and ' +
      'FP8 checkpoints did not help either: both reproduce it.',
  },
});
