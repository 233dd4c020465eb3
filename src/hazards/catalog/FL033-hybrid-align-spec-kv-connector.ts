import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { kvConnector } from '../conditions/kv-connector.js';
import { mambaAlignMode } from '../conditions/mamba-align.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#53505: hybrid align + spec decoding + any KV connector. */
export const FL033 = defineHazard({
  id: 'FL033',
  alias: 'hybrid-align-spec-kv-connector',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'a hybrid Mamba model in mamba_cache_mode align with speculative decoding corrupts when any KV connector is attached — even one that transfers nothing: looping reasoning, numeric garbage, runaway generation',
  mechanism:
    'Attaching a KV connector switches the scheduler to get_computed_blocks_for_connector(), a per-group lookup whose ' +
    'computed boundary, under speculative decoding, does not match where the recurrent state can actually resume. Decode ' +
    'continues from a mismatched state.',
  affected: { vllm: 'closed without an identified fix' },
  confidence: 'reported',
  conditions: [
    hybridRecurrentModel(),
    mambaAlignMode(),
    speculativeDecoding({}),
    kvConnector(),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'an unidentified change (the issue was closed without naming one)',
      record: 'closed without an identified fix',
    }),
  ],
  locateAt: 'kv-connector',
  remedies: [
    {
      id: 'no-kv-connector',
      change: { unset: 'kv_transfer_config' },
      why: 'the same traffic without a connector was clean',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the corruption needed speculative decoding',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --speculative-config '{"method": "dflash", "num_speculative_tokens": 7}' --kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'`,
      model: 'qwen3.6-27b',
      points: '--kv-transfer-config',
      possibly: true,
    },
    clean: {
      command: `vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --speculative-config '{"method": "dflash", "num_speculative_tokens": 7}'`,
      model: 'qwen3.6-27b',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#53505: Hybrid Mamba (align) corrupts under speculative decoding when a KV connector is attached — even with zero retrieved tokens',
      url: 'https://github.com/vllm-project/vllm/issues/53505',
    },
    {
      title:
        'local-inference-lab/vllm#402: hybrid scheduler corrupts generation with any external KV connector attached',
      url: 'https://github.com/local-inference-lab/vllm/issues/402',
    },
  ],
  docs: {
    problem:
      'With DFlash drafting (k = 7) on a hybrid model, attaching a KV connector — for disaggregation or offloading — makes ' +
      'reasoning loop, numbers turn to garbage and generations run away to 96k tokens, though the connector moves no data.',
    exceptions:
      'Closed without a named fix, so every version is unknown. A fork reports the same class without speculative decoding ' +
      '(any connector but NIXL); that variant is not covered here.',
  },
});
