import { defineHazard } from '../hazard.js';
import { concurrentRequests } from '../conditions/concurrency.js';
import { nativeKvOffload } from '../conditions/kv-offload.js';
import { asyncScheduling } from '../conditions/scheduling.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#45704 → PR #46278 (store race) and #47282 → PR #47324 (load race); field round 3 §3.2 V3. */
export const FL043 = defineHazard({
  id: 'FL043',
  alias: 'simple-cpu-offload-races',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'SimpleCPUOffloadConnector with overlapped (async) execution races its KV copies against the model under load: blocks restored from CPU come back garbled',
  mechanism:
    'With async scheduling the next step’s forward pass runs while the connector still copies blocks. The store path ' +
    'copied blocks to the CPU tier before the step that wrote them had finished (150 of 150 corrupt iterations in the ' +
    'minimal test; fixed by PR #46278). The load path has a write-after-read race: a block being restored into GPU ' +
    'memory can be overwritten by the running step; at concurrency 64 (gemma-4-31B NVFP4, FP8 KV) 142 of 3,300 ' +
    'requests came back garbled, 0 of 3,000 with the proposed fix (PR #47324, open).',
  affected: {
    vllm: 'store race fixed by PR #46278 (mid-2026); load race open (vllm#47282, fix PR #47324 not merged)',
  },
  confidence: 'reported',
  conditions: [
    nativeKvOffload({ connectors: ['SimpleCPUOffloadConnector'], viaOffloadingSize: false }),
    asyncScheduling('on'),
    concurrentRequests(),
    affectedVersion({
      pkg: 'vllm',
      record: 'store race fixed by PR #46278; the load race (vllm#47282) has no merged fix',
    }),
  ],
  locateAt: 'native-kv-offload',
  remedies: [
    {
      id: 'no-async-scheduling',
      change: { set: { async_scheduling: false } },
      inferred: true,
      why: 'both races need the next step to run while the connector copies; without overlapped execution the copies finish first',
    },
    {
      id: 'no-kv-connector',
      change: { unset: 'kv_transfer_config' },
      why: 'no CPU tier, no copies to race',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve nvidia/Gemma-4-31B-IT-NVFP4 --kv-cache-dtype fp8 --async-scheduling --kv-transfer-config '{"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both"}'`,
      model: 'gemma-4-31b-it-nvfp4',
      points: '--kv-transfer-config',
    },
    clean: {
      command: `vllm serve nvidia/Gemma-4-31B-IT-NVFP4 --kv-cache-dtype fp8 --no-async-scheduling --kv-transfer-config '{"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both"}'`,
      model: 'gemma-4-31b-it-nvfp4',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#45704: SimpleCPUOffloadConnector corrupts restored KV under load (store race)',
      url: 'https://github.com/vllm-project/vllm/issues/45704',
    },
    {
      title: 'vllm-project/vllm PR #46278 (merged): the store-race fix',
      url: 'https://github.com/vllm-project/vllm/pull/46278',
    },
    {
      title:
        'vllm-project/vllm#47282: SimpleCPUOffloadConnector load-path write-after-read race (4.3 % garbled at concurrency 64)',
      url: 'https://github.com/vllm-project/vllm/issues/47282',
    },
    {
      title: 'vllm-project/vllm PR #47324 (open): the load-race fix',
      url: 'https://github.com/vllm-project/vllm/pull/47324',
    },
  ],
  docs: {
    problem:
      'A server that offloads KV blocks to CPU memory with SimpleCPUOffloadConnector answers a few percent of requests ' +
      'with garbled text under concurrent load (4.3 % at concurrency 64 in the report), and only requests that reuse ' +
      'offloaded blocks. Nothing is logged.',
    exceptions:
      'The store race is fixed (PR #46278) but its first release is not established; the load race is open, so every ' +
      'version is affected. How often it fires depends on load and cache reuse, which the launch does not show: ' +
      'concurrency makes it possible, not certain. Whether async scheduling is on by default in a given release is not ' +
      'established, so an absent flag leaves the finding "possibly affected".',
  },
});
