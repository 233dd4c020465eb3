import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #38711: stale MTP drafts near max_model_len under synchronous scheduling. */
export const FL020 = defineHazard({
  id: 'FL020',
  alias: 'mtp-sync-scheduling-stale-drafts',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'MTP on a hybrid Mamba model with synchronous scheduling feeds stale draft tokens once a sequence comes within num_speculative_tokens of max_model_len: the Mamba state is corrupted and logprobs are catastrophically wrong (vLLM before PR #38711)',
  mechanism:
    'When a sequence is too close to max_model_len for the drafter to run, the drafts must be zeroed. vLLM zeroed them ' +
    'only on the async-scheduling path; with synchronous scheduling — used by the Ray executor and forced for MTP — the ' +
    'previous step’s drafts stayed in place, were verified again and corrupted the recurrent (Mamba) state. PR #38711 ' +
    'zeroes them for every drafter.',
  affected: { vllm: 'before PR #38711 (merged 2026-04); 0.23.1 and later contain it' },
  confidence: 'confirmed',
  conditions: [
    speculativeDecoding({ methods: ['mtp'] }),
    hybridRecurrentModel(),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'PR #38711',
      containsFixFrom: {
        version: '0.23.1',
        why: 'PR #38711 merged in 2026-04 (reviewed 2026-04-01), and 0.23.1 release candidates were nightlies of 2026-07 (vllm#47847)',
      },
      record: 'fixed by PR #38711 (2026-04)',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.23.1' } },
      why: 'a release cut after PR #38711 merged',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'no drafts, nothing stale to verify',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      model: 'qwen3-next-80b-a3b',
      vllm: '0.19.0',
      points: '--speculative-config',
      possibly: true,
    },
    clean: {
      command: 'vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4',
      model: 'qwen3-next-80b-a3b',
      vllm: '0.19.0',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm PR #38711: Fix invalid logprobs with MTP enabled and sync scheduling',
      url: 'https://github.com/vllm-project/vllm/pull/38711',
    },
  ],
  docs: {
    problem:
      'Found on NVIDIA-Nemotron-3-Super-120B-A12B with MTP: as a sequence approaches max_model_len, logprobs go ' +
      'catastrophically wrong, because stale drafts are verified again and written into the model’s recurrent state.',
    exceptions:
      'It needs a sequence within num_speculative_tokens of max_model_len, which a launch cannot show (long generations, ' +
      'or a small --max-model-len, make it likely). The fix states the state corruption for Mamba layers; attention-only ' +
      'models are not covered. Releases before 0.23.1 are unknown (the first release with PR #38711 is not established).',
  },
});
