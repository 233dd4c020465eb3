import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { prefixCaching } from '../conditions/serving-features.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#43559 / #53912: prefix caching + MTP/EAGLE on hybrid models reuses poisoned state. */
export const FL023 = defineHazard({
  id: 'FL023',
  alias: 'hybrid-prefix-cache-mtp-eagle-block',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'prefix caching with MTP or EAGLE on a hybrid Mamba/GDN model keeps a block whose recurrent state was written over rejected drafts reachable: later requests sharing the prefix are corrupted until restart',
  mechanism:
    'Per the open fix PRs: EAGLE/MTP need the last matched cache block dropped on a hit, because its state was written ' +
    'over draft positions. The KV-cache coordinator skips that margin for Mamba groups, expecting ' +
    'MambaManager.find_longest_cache_hit to drop the block — which accepts drop_eagle_block and never acts on it. The ' +
    'poisoned state stays hash-reachable and every later request with that prefix restores it.',
  affected: { vllm: 'reported through 0.28.0; fix PRs #48375 and #57128 open' },
  confidence: 'reported',
  conditions: [
    hybridRecurrentModel(),
    prefixCaching({ hybrid: true }),
    speculativeDecoding({ methods: ['mtp', 'eagle', 'eagle3'] }),
    affectedVersion({
      pkg: 'vllm',
      lastReported: '0.28.0',
      record: 'reported through 0.28.0; fix PRs #48375 and #57128 open',
    }),
  ],
  locateAt: 'prefix-caching',
  remedies: [
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'the workaround on the record: MTP alone is clean, the poisoned blocks need the prefix cache',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'prefix caching alone is clean',
    },
  ],
  nonRemedies: [
    {
      id: 'other-tool-call-parser',
      change: { set: { tool_call_parser: 'hermes' } },
      label: 'another --tool-call-parser (or chat template)',
      why: 'the tool-call leakage comes from the corrupted state, not from the parser',
    },
  ],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --enable-auto-tool-choice --tool-call-parser qwen3_coder --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      model: 'qwen3.6-27b',
      vllm: '0.28.0',
      points: '--enable-prefix-caching',
    },
    clean: {
      command: `vllm serve Qwen/Qwen3.6-27B --no-enable-prefix-caching --enable-auto-tool-choice --tool-call-parser qwen3_coder --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      model: 'qwen3.6-27b',
      vllm: '0.28.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#53912: prefix caching + MTP still corrupts output on hybrid Mamba/GDN models in v0.28.0',
      url: 'https://github.com/vllm-project/vllm/issues/53912',
    },
    {
      title:
        'vllm-project/vllm#43559: Accuracy drops ~20% when --enable-prefix-caching is used together with MTP (Qwen3.6 35B-A3B)',
      url: 'https://github.com/vllm-project/vllm/issues/43559',
    },
    {
      title: 'vllm-project/vllm PR #48375: Honor drop_eagle_block in MambaManager (open)',
      url: 'https://github.com/vllm-project/vllm/pull/48375',
    },
    {
      title:
        'vllm-project/vllm PR #57128: MambaManager.find_longest_cache_hit ignores drop_eagle_block (open)',
      url: 'https://github.com/vllm-project/vllm/pull/57128',
    },
  ],
  docs: {
    problem:
      'Qwen3.5/3.6-family hybrids with MTP and prefix caching lose accuracy (a tool eval fell from about 90 % to about ' +
      '50 %), leak or drop tool calls on repeated identical prompts, fail long-context recall, or return empty or ' +
      'repeated-character output. It persists until restart, because the poisoned blocks stay in the prefix cache.',
    exceptions:
      'Many independent reports but no merged fix or maintainer confirmation. Whether prefix caching is on by default for ' +
      'hybrid models is not established, so an unset flag is unknown.',
  },
});
