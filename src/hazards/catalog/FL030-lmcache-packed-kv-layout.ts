import { defineHazard } from '../hazard.js';
import { lmcacheConnectorOnPackedLayout } from '../conditions/lmcache.js';
import { affectedVersion } from '../conditions/versions.js';

/** ai-dynamo/dynamo#14416, LMCache#4463 / #4247: LMCache against vLLM 0.26's packed KV layout. */
export const FL030 = defineHazard({
  id: 'FL030',
  alias: 'lmcache-packed-kv-layout',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'LMCache restores KV in the old separate-K/V layout into vLLM ≥ 0.26.0’s packed layout: cache hits return corrupted generations while stores and retrieves report success',
  mechanism:
    'vLLM PR #44455 (0.26.0) packed the KV cache from [blocks, 2, block_size, heads, head_size] to [blocks, heads, ' +
    'block_size, 2 × head_size]. The in-process LMCacheConnectorV1 keeps reading and writing the old layout (LMCache#4463); ' +
    'the multi-process connector works for dense models but corrupts shared-prefix hits on hybrid Mamba/GDN models ' +
    '(LMCache#4247) and persists only one of N kernel pages to disk (LMCache#4701).',
  affected: {
    vllm: 'from 0.26.0 (PR #44455), with LMCache 0.5.2–0.5.4 in the reports; LMCache fix PRs #4467 and #4253 proposed',
  },
  confidence: 'reported',
  conditions: [
    lmcacheConnectorOnPackedLayout(),
    affectedVersion({
      pkg: 'vllm',
      introduced: '0.26.0',
      record: 'from 0.26.0 (packed KV layout, PR #44455); open on the LMCache side',
    }),
  ],
  locateAt: 'lmcache-connector',
  remedies: [
    {
      id: 'lmcache-mp-connector',
      change: { set: { 'kv_transfer_config.kv_connector': 'LMCacheMPConnector' } },
      label: 'kv_transfer_config.kv_connector=LMCacheMPConnector (dense models)',
      why: 'the workaround in LMCache#4463 for attention-only models; hybrid models are affected on this connector too',
    },
    { id: 'no-kv-connector', change: { unset: 'kv_transfer_config' }, why: 'no LMCache restores' },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-transfer-config '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}'`,
      model: 'llama-3.1-8b-instruct',
      vllm: '0.26.0',
      points: '--kv-transfer-config',
    },
    clean: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-transfer-config '{"kv_connector": "LMCacheMPConnector", "kv_role": "kv_both"}'`,
      model: 'llama-3.1-8b-instruct',
      vllm: '0.26.0',
    },
  },
  references: [
    {
      title: 'ai-dynamo/dynamo#14416: vLLM 0.26.0 + LMCache 0.5.2 can silently corrupt cached output',
      url: 'https://github.com/ai-dynamo/dynamo/issues/14416',
    },
    {
      title: 'LMCache/LMCache#4463: Silent KV cache corruption on vLLM 0.26 fused/packed KV layout',
      url: 'https://github.com/LMCache/LMCache/issues/4463',
    },
    {
      title:
        'LMCache/LMCache#4247: LMCacheMPConnector silently corrupts output on shared-prefix requests for hybrid Mamba/GDN models under vLLM 0.26.0',
      url: 'https://github.com/LMCache/LMCache/issues/4247',
    },
    {
      title: 'vllm-project/vllm PR #44455 (packed KV cache layout)',
      url: 'https://github.com/vllm-project/vllm/pull/44455',
    },
  ],
  docs: {
    problem:
      'After upgrading to vLLM 0.26, requests served from LMCache come back as multilingual token salad or subtly wrong ' +
      'text; the connector logs successful stores and retrieves. Reproduced also on 0.27.2rc1 with LMCache 0.5.3.',
    exceptions:
      'faultline does not know the LMCache version; a release of LMCache that handles the packed layout would clear it. ' +
      'The hybrid case needs the model config (--model-config) to be decided.',
  },
});
