import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { switchOn } from '../conditions/sglang/conditions.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#39830, #33713, PR #39862 (research/interaction-bugs.md C9, variant a). */
export const FL223 = defineHazard({
  id: 'FL223',
  alias: 'sgl-hicache-restore-corruption',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: SGLang’s hierarchical cache restoring a prefix of a hybrid GDN/Mamba model from the host tier answers fluently but wrongly (20/20)',
  mechanism:
    'Registered Mamba side states are not carried through the host tier (PR #39862), and Mamba component nodes are pruned instead of downgraded on device eviction (#33713).',
  affected: { sglang: 'open' },
  confidence: 'reported',
  conditions: [
    hybridRecurrentModel(),
    switchOn(
      'hierarchical-cache',
      'enable_hierarchical_cache',
      'the hierarchical (host / storage) cache is on',
    ),
    sglangOpen('HiCache host-tier restore of hybrid models'),
  ],
  locateAt: 'hierarchical-cache',
  remedies: [
    {
      id: 'no-hierarchical-cache',
      change: { unset: 'enable_hierarchical_cache' },
      why: 'the record’s workaround',
    },
  ],
  nonRemedies: [
    {
      id: 'write-back',
      change: { set: { hicache_write_policy: 'write_back' } },
      why: 'only caches less; the restored prefixes are still wrong (#39830)',
    },
  ],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --enable-hierarchical-cache --hicache-ratio 2',
      model: 'sgl-qwen3.5-35b-a3b',
      points: '--enable-hierarchical-cache',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B',
      model: 'sgl-qwen3.5-35b-a3b',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#39830: Hierarchical cache returns wrong output on a hybrid (GDN/Mamba) model',
      url: 'https://github.com/sgl-project/sglang/issues/39830',
    },
    {
      title:
        'sgl-project/sglang PR #39862: HiCache: carry registered Mamba slot side states through the host tier',
      url: 'https://github.com/sgl-project/sglang/pull/39862',
    },
    {
      title: 'kvcache-ai/Mooncake#2236: NSA models: silent output corruption on HiCache L3 (Mooncake) hit',
      url: 'https://github.com/kvcache-ai/Mooncake/issues/2236',
    },
  ],
  docs: {
    problem:
      'Known from user reports: a prefix evicted to host memory and restored gives a fluent answer in another request’s voice; `cached_tokens` shows a full hit and finish_reason is stop.',
    exceptions: 'The NSA-model variant with a Mooncake L3 store (Mooncake#2236) is not checked here.',
  },
});
