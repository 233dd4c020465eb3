import { defineHazard } from '../hazard.js';
import { switchOn } from '../conditions/llama-cpp.js';
import { slidingWindowLayers } from '../conditions/model.js';

/** faultline finding 005: --swa-full × the prompt cache on a sliding-window model gives other logits. */
export const FL306 = defineHazard({
  id: 'FL306',
  alias: 'llama-swa-full-prompt-cache-logits',
  engines: ['llama.cpp'],
  severity: 'warning',
  summary:
    'llama-server serving a sliding-window model with --swa-full and the prompt cache gives a prompt whose prefix comes from the cache other logits than the same prompt evaluated whole (up to 2.2 nat; 17 of 300 greedy outputs changed)',
  mechanism:
    'Not localized. With the full-size SWA cache, a slot that reuses the cached prefix of its previous prompt evaluates ' +
    'only the rest; the next-token distribution then differs from evaluating the whole prompt by up to 2.21 nat (0.1 nat ' +
    'even inside the window), where without --swa-full the same reuse stays within 4.5e-3 nat and a different batch size ' +
    'alone changes nothing (finding 005).',
  affected: {
    llamaCpp: 'v0.4.0 (80fb11a, built from node-llama-cpp 3.21.1’s bundle, CPU) reproduced; other builds and backends not measured',
  },
  confidence: 'reproduced',
  confidenceReason:
    'faultline finding 005: llama-server against itself, one field changed (cache_prompt): 17 of 300 prompts change with --swa-full, 2 near-ties without it (one factor off), 0 of 300 with the batch size changed instead; the fresh evaluation agrees with node-llama-cpp (29 of 29 identical)',
  conditions: [
    slidingWindowLayers(),
    switchOn({ name: 'swa-full', fact: 'swaFull', role: 'feature', what: 'the SWA cache is full-size (--swa-full)' }),
    switchOn({
      name: 'prompt-cache',
      fact: 'cachePrompt',
      role: 'bound',
      what: 'the prompt cache is on (--cache-prompt, the default)',
    }),
  ],
  locateAt: 'swa-full',
  remedies: [
    {
      id: 'no-swa-full',
      change: { set: { swa_full: false } },
      why: 'without --swa-full the prompt cache stayed within 4.5e-3 nat (finding 005); the sliding layers then keep only the window, which reuses less (and, with several slots and checkpoints, meets FL303)',
    },
    {
      id: 'no-prompt-cache',
      change: { set: { cache_prompt: false } },
      why: 'each prompt evaluated whole is the evaluation every control agrees with (finding 005); prompts are no longer reused, so long shared prefixes are evaluated again',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'llama-server -m /models/gemma-3-27b-it-Q4_K_M.gguf -np 1 -c 32768 -ngl 99 --swa-full',
      model: 'gguf-gemma-3-27b-it',
      points: '--swa-full',
    },
    clean: {
      command: 'llama-server -m /models/gemma-3-27b-it-Q4_K_M.gguf -np 1 -c 32768 -ngl 99 --swa-full --no-cache-prompt',
      model: 'gguf-gemma-3-27b-it',
    },
  },
  references: [
    {
      title:
        'ggml-org/llama.cpp PR #13194: kv-cache : add SWA support (brings the full-size SWA cache, --swa-full; llama-server logs this link when it is on). The defect itself is faultline finding 005 (docs/findings/005), not found in public trackers',
      url: 'https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055',
    },
  ],
  docs: {
    problem:
      'Answers change with what the server answered before: a prompt that shares its beginning with an earlier one (a ' +
      'chat turn, a shared system prompt) is now and then answered differently than the same prompt sent to a fresh ' +
      'server. The text still reads fluently; regenerating after a restart gives the other answer.',
    exceptions:
      'Measured on a small sliding-window model on the CPU; the size of the effect on large models and GPU backends is ' +
      'not measured. --swa-full is FL303’s remedy: with several slots and context checkpoints, dropping it trades this ' +
      'hazard for that one, and turning the prompt cache off avoids both.',
  },
});
