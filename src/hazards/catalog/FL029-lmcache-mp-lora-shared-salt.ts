import { defineHazard } from '../hazard.js';
import { kvConnector } from '../conditions/kv-connector.js';
import { requestsUse } from '../conditions/request-time.js';
import { loraEnabled } from '../conditions/serving-features.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#44250 / PR #45549: LMCache MP keys KV by tokens and cache_salt, not the LoRA adapter. */
export const FL029 = defineHazard({
  id: 'FL029',
  alias: 'lmcache-mp-lora-shared-salt',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'the LMCache multi-process connector keys external KV by token ids and cache_salt only: two LoRA adapters with the same prompt reuse each other’s KV',
  mechanism:
    'LMCacheMPConnector builds its keys from the prompt’s token ids plus cache_salt. KV tensors depend on the adapter, ' +
    'but the adapter is not part of the key, so a request for adapter B restores blocks that adapter A computed. The ' +
    'open fix folds the adapter name into the connector’s internal salt.',
  affected: { vllm: 'open (fix PR #45549)' },
  confidence: 'reported',
  conditions: [
    loraEnabled(),
    kvConnector({ only: ['LMCacheMPConnector'] }),
    requestsUse({
      name: 'prompts-shared-across-adapters',
      what: 'requests for different adapters share prompts (and cache_salt)',
    }),
    affectedVersion({ pkg: 'vllm', record: 'open; fix PR #45549 open' }),
  ],
  locateAt: 'kv-connector',
  remedies: [
    {
      id: 'no-kv-connector',
      change: { unset: 'kv_transfer_config' },
      why: 'no external KV to restore under the wrong adapter',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --kv-transfer-config '{"kv_connector": "LMCacheMPConnector", "kv_role": "kv_both"}'`,
      points: '--kv-transfer-config',
      possibly: true,
    },
    clean: { command: 'vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora' },
  },
  references: [
    {
      title: 'vllm-project/vllm PR #45549: Fix LMCache MP LoRA cache salt keying (open)',
      url: 'https://github.com/vllm-project/vllm/pull/45549',
    },
    {
      title: 'vllm-project/vllm#44250 (fixed by PR #45549)',
      url: 'https://github.com/vllm-project/vllm/issues/44250',
    },
  ],
  docs: {
    problem:
      'A multi-LoRA deployment with LMCache serves adapter B’s requests with KV that adapter A computed for the same ' +
      'prompt; outputs blend the two adapters without any error.',
    exceptions:
      'It needs the same prompt under different adapters, which the launch cannot show: "possibly affected".',
  },
});
