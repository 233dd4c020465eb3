import { defineHazard } from '../hazard.js';
import { kvConnector } from '../conditions/kv-connector.js';
import { modelTypeIs } from '../conditions/model-type.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#52627 (research/field-2026-12-round3.md §3.2 V7). */
export const FL045 = defineHazard({
  id: 'FL045',
  alias: 'kimi-k3-nixl-pd',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'Kimi-K3 served as prefill/decode disaggregation over the NIXL connector (1P1D) silently corrupts output on the decode side',
  mechanism:
    'Reported on a one-prefill, one-decode NIXL Direct-PD deployment of Kimi-K3 with an FP8 KV cache and DSpark ' +
    'speculation: the decode instance answers with corrupted text while nothing errors. Prefix caching on and off were ' +
    'both tried and both corrupt. The cause is not established; the report says it still exists in vLLM 0.28.0.',
  affected: { vllm: 'reported up to 0.28.0 (vllm#52627, open)' },
  confidence: 'reported',
  conditions: [
    modelTypeIs({ name: 'kimi-k3-model', family: 'Kimi-K3', prefixes: ['kimi_k3'] }),
    kvConnector({ only: ['NixlConnector'] }),
    affectedVersion({ pkg: 'vllm', record: 'still present in 0.28.0 per the report; open' }),
  ],
  locateAt: 'kv-connector',
  remedies: [
    {
      id: 'no-kv-connector',
      change: { unset: 'kv_transfer_config' },
      inferred: true,
      why: 'aggregated serving (no PD split, no KV transfer) is not what the report describes as corrupt',
    },
  ],
  nonRemedies: [
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'the reporter tried prefix caching on and off: both corrupt',
    },
  ],
  examples: {
    failing: {
      command: `vllm serve moonshotai/Kimi-K3 --tensor-parallel-size 8 --kv-cache-dtype fp8 --kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'`,
      model: 'kimi-k3',
      vllm: '0.28.0',
      points: '--kv-transfer-config',
    },
    clean: {
      command: 'vllm serve moonshotai/Kimi-K3 --tensor-parallel-size 8 --kv-cache-dtype fp8',
      model: 'kimi-k3',
      vllm: '0.28.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#52627: Kimi-K3 silent output corruption in 1P1D NIXL Direct-PD disaggregated deployment',
      url: 'https://github.com/vllm-project/vllm/issues/52627',
    },
  ],
  docs: {
    problem:
      'A Kimi-K3 deployment split into one prefill and one decode instance connected by NIXL returns corrupted answers ' +
      'with HTTP 200; the same model served on one instance does not show it in the report.',
    exceptions:
      'One report, which also ran an FP8 KV cache and DSpark speculation; which of these are needed is not established, ' +
      'so lint requires only the model and the NIXL connector. The model is recognized by model_type kimi_k3 (the name ' +
      'vLLM’s kimi_k3_mtp drafter type implies), from --model-config only.',
  },
});
