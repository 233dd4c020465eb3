import { defineHazard } from '../hazard.js';
import { requestsUse } from '../conditions/request-time.js';
import { loraEnabled, prefixCaching } from '../conditions/serving-features.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#30931 / #44701: prefix-cache keys by LoRA name collide. */
export const FL028 = defineHazard({
  id: 'FL028',
  alias: 'lora-prefix-cache-name-collision',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'with prefix caching and LoRA, blocks are keyed by the adapter’s name: an adapter reloaded under the same name, or a name equal to another request’s cache_salt, reuses KV computed under other weights',
  mechanism:
    'Since PR #27211 the block hash carries the LoRA name instead of its integer id (for hashes that agree across ' +
    'instances). Two different adapters under one name share blocks, and because LoRA names and cache_salt enter the ' +
    'same untagged extra-key list, a base-model request whose cache_salt equals a LoRA name hits that adapter’s blocks ' +
    '(reproduced on an A100 at main 2026-06-05).',
  affected: { vllm: 'since PR #27211 (merged 2025-10-20); open (fix PR #44706 open)' },
  confidence: 'reported',
  conditions: [
    loraEnabled(),
    prefixCaching(),
    requestsUse({
      name: 'lora-name-reused',
      what: 'requests use an adapter name that another adapter had (reloaded in place), or a cache_salt equal to a LoRA name',
    }),
    affectedVersion({
      pkg: 'vllm',
      record: 'since PR #27211 (2025-10-20), first release not established; open',
    }),
  ],
  locateAt: 'lora',
  remedies: [
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'no shared blocks to collide (unique adapter names per load, or a cache reset on reload, also avoid it)',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --max-loras 4',
      points: '--enable-lora',
      possibly: true,
    },
    clean: {
      command:
        'vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --max-loras 4 --no-enable-prefix-caching',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm#30931: Prefix Cache Corruption with LoRA with the same name but different id',
      url: 'https://github.com/vllm-project/vllm/issues/30931',
    },
    {
      title:
        'vllm-project/vllm#44701: V1 prefix-cache extra-key domain collision between LoRA name and cache_salt',
      url: 'https://github.com/vllm-project/vllm/issues/44701',
    },
    {
      title: 'vllm-project/vllm PR #27211: Use LoRA name for consistent KV-cache block hashing',
      url: 'https://github.com/vllm-project/vllm/pull/27211',
    },
  ],
  docs: {
    problem:
      'RL weight sync that reloads an adapter in place under the same name, ablation runs that reuse names, or a ' +
      'cache_salt that happens to equal an adapter name: the request is answered from KV computed under different weights.',
    exceptions:
      'It needs a reused name (or a colliding salt), which the launch cannot show: "possibly affected". The first release ' +
      'with PR #27211 is not established, so older releases are not excluded.',
  },
});
