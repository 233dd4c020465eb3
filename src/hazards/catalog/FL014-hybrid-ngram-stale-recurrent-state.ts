import { defineHazard } from '../hazard.js';
import { draftFreeStepsProposer } from '../conditions/draft-free-steps.js';
import { hybridRecurrentModel, mambaCacheModeNone } from '../conditions/hybrid-recurrent.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#39273: n-gram drafting on hybrid GDN models reads a stale recurrent state. */
export const FL014 = defineHazard({
  id: 'FL014',
  alias: 'hybrid-ngram-stale-recurrent-state',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'n-gram speculative decoding on a hybrid GDN/Mamba model in mamba_cache_mode "none" reads a stale recurrent state after draft-free steps: repetition loops and drift from the non-speculative output',
  mechanism:
    'The spec-decode GDN/Mamba kernels read a request’s incoming state from block-table column num_accepted_tokens−1, ' +
    'while the non-speculative decode path reads column 0, and mamba_cache_mode "none" does no post-sampling migration ' +
    'of the state. A step that accepted two or more drafts followed by a step with no drafts — which an n-gram proposer ' +
    'produces whenever the context has no match — reads a state that lacks the accepted drafts’ updates, and the error ' +
    'is never repaired. MTP and EAGLE draft on every step and are not affected. Fix PRs #40738 and #52942 are open.',
  affected: { vllm: 'reported from 0.18.1rc1 nightlies on; open (fix PRs #40738, #52942 not merged)' },
  confidence: 'reported',
  conditions: [
    hybridRecurrentModel(),
    draftFreeStepsProposer(),
    mambaCacheModeNone(),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.18.1rc1.dev0',
      record: 'reported from the 0.18.1rc1 nightlies on; fix PRs #40738 and #52942 are open',
    }),
  ],
  locateAt: 'draft-free-steps-proposer',
  remedies: [
    {
      id: 'mtp-drafter',
      change: { set: { 'speculative_config.method': 'mtp' } },
      label: 'switch the drafter to MTP or EAGLE (speculative_config.method mtp / eagle)',
      why: 'the workaround on the record: they draft on every step, so no draft-free step follows an accepted block',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the other workaround on the record: every step then takes the non-speculative path, which reads the state from column 0',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3.5-35B-A3B --no-enable-prefix-caching --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'`,
      model: 'qwen3.5-35b-a3b',
      points: '--speculative-config',
    },
    clean: {
      command: `vllm serve Qwen/Qwen3.5-35B-A3B --no-enable-prefix-caching --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
      model: 'qwen3.5-35b-a3b',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#39273: Ngram speculative decoding produces corrupted output on hybrid GDN (Qwen3.5) models',
      url: 'https://github.com/vllm-project/vllm/issues/39273',
    },
    {
      title: 'vllm-project/vllm PR #40738: Fix GDN conv + SSM state corruption with ngram spec decode (open)',
      url: 'https://github.com/vllm-project/vllm/pull/40738',
    },
    {
      title:
        'vllm-project/vllm PR #52942: Fix stale mamba/GDN states with ngram spec decode on hybrid models (open)',
      url: 'https://github.com/vllm-project/vllm/pull/52942',
    },
    {
      title:
        'sgl-project/sglang PR #26351: commit Mamba states after NGRAM target verify (the SGLang sibling, merged)',
      url: 'https://github.com/sgl-project/sglang/pull/26351',
    },
  ],
  docs: {
    problem:
      'Greedy output of a Qwen3.5-family hybrid model (e.g. 24 GDN + 8 attention layers) served with n-gram speculative ' +
      'decoding diverges from the same model without speculation: repetition loops and drift that accumulate over the ' +
      'decode steps. Nothing is logged; the server stays healthy.',
    exceptions:
      'Prefix caching forces mamba_cache_mode "align", which is outside the reported conditions, so lint does not report ' +
      'this hazard then — but that is not a reported workaround, and align mode with MTP/EAGLE has hazards of its own ' +
      '(research catalog B4, B5). Without --enable-prefix-caching / --no-enable-prefix-caching the cache mode is unknown: ' +
      'whether prefix caching is on by default for hybrid models depends on the release. Proposers other than n-gram, MTP ' +
      'and EAGLE (suffix decoding, ngram_gpu, draft models) are not in the record and are reported as unknown. Possibly ' +
      'related reports: n-gram drafting corrupting tool calls on hybrid Qwen3.6/3.8 models (vllm#40875, vllm#56077). The ' +
      'vLLM side rests on user reports and open PRs (confidence "reported"); SGLang confirmed and fixed its sibling ' +
      'defect in PR #26351, which lint does not model: it reads vLLM launches only.',
  },
});
