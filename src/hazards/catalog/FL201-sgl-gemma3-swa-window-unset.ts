import { defineHazard } from '../hazard.js';
import { slidingWindowLayers } from '../conditions/model.js';
import { modelIs } from '../conditions/sglang/model.js';
import { affectedVersion } from '../conditions/versions.js';

/** sgl-project/sglang PR #4823 (research/field-2026-12.md S2); first in 0.4.4.post3 (version.py history). */
export const FL201 = defineHazard({
  id: 'FL201',
  alias: 'sgl-gemma3-swa-window-unset',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'Gemma 3 on SGLang before 0.4.4.post3: the attention backends are set up without the sliding-window size, so past about 2k tokens the model emits garbage',
  mechanism:
    'The Gemma 3 model class did not implement get_attention_sliding_window_size, so the attention backends were initialised without a window and the sliding layers attended the whole context.',
  affected: {
    sglang:
      'before 0.4.4.post3 (PR #4823, merged 2025-03-27; 0.4.4.post3 is the first release whose version.py commit contains it)',
  },
  confidence: 'confirmed',
  conditions: [
    modelIs('gemma3-model', 'a Gemma 3 model', {
      architectures: ['Gemma3ForCausalLM', 'Gemma3ForConditionalGeneration'],
      modelTypes: ['gemma3', 'gemma3_text'],
      namePattern: /gemma-?3(?!n)/i,
    }),
    slidingWindowLayers(),
    affectedVersion({
      pkg: 'sglang',
      fixed: '0.4.4.post3',
      fixedBy: 'PR #4823',
      record: 'Gemma 3 sliding window not passed to the attention backends until PR #4823',
    }),
  ],
  locateAt: 'gemma3-model',
  remedies: [
    {
      id: 'upgrade',
      change: { versions: { sglang: '0.4.4.post3' } },
      why: 'PR #4823 gives the backends Gemma 3’s window size',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'python3 -m sglang.launch_server --model-path google/gemma-3-27b-it --tp-size 2',
      model: 'sgl-gemma-3-27b-it',
      sglang: '0.4.4.post1',
      points: '--model-path',
    },
    clean: {
      command: 'python3 -m sglang.launch_server --model-path google/gemma-3-27b-it --tp-size 2',
      model: 'sgl-gemma-3-27b-it',
      sglang: '0.4.5.post3',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #4823: gemma3: impl get_attention_sliding_window_size for attn init',
      url: 'https://github.com/sgl-project/sglang/pull/4823',
    },
    {
      title: 'sgl-project/sglang#4807 (related report)',
      url: 'https://github.com/sgl-project/sglang/issues/4807',
    },
  ],
  docs: {
    problem:
      'Gemma 3 answers fluently for short prompts and degenerates into garbage tokens once a conversation passes about 2,000 tokens.',
  },
});
