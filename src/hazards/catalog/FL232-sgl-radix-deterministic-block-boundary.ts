import { defineHazard } from '../hazard.js';
import { requestsUse } from '../conditions/request-time.js';
import { notDisabled, switchOn } from '../conditions/sglang/conditions.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#22819 (research/field-2026-12-round3.md §3.3 S1). */
export const FL232 = defineHazard({
  id: 'FL232',
  alias: 'sgl-radix-deterministic-block-boundary',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'SGLang’s radix cache with --enable-deterministic-inference corrupts the KV cache when a shared prefix is exactly one block long: identical requests diverge',
  mechanism:
    'With deterministic inference on, a request whose cached prefix ends exactly at a KV block boundary (prefix length ' +
    '== block size) reuses the radix-cached block, and the continuation is computed against corrupted KV: 9 of 11 ' +
    'requests diverged from the uncached run (Qwen2.5-0.5B on an H100). The mechanism inside the radix cache is not ' +
    'established; candidate fix branches did not clear it.',
  affected: {
    sglang: 'reported Apr 2026 (sglang#22819, found by a fuzzer and confirmed by a second tester); open',
  },
  confidence: 'reported',
  conditions: [
    switchOn(
      'deterministic-inference',
      'enable_deterministic_inference',
      'deterministic inference is on (--enable-deterministic-inference)',
    ),
    notDisabled(
      'radix-cache',
      'disable_radix_cache',
      'the radix (prefix) cache is on (no --disable-radix-cache)',
    ),
    requestsUse({
      name: 'prefix-one-block-long',
      what: 'requests share a cached prefix exactly one KV block long',
    }),
    sglangOpen('radix cache × deterministic inference at a block boundary, reported Apr 2026'),
  ],
  locateAt: 'deterministic-inference',
  remedies: [
    {
      id: 'no-radix-cache',
      change: { add: '--disable-radix-cache' },
      why: 'the report’s control: with --disable-radix-cache the same requests agree',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-deterministic-inference',
      model: 'sgl-llama-3.1-8b',
      sglang: '0.5.6.post2',
      points: '--enable-deterministic-inference',
      possibly: true,
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-deterministic-inference --disable-radix-cache',
      model: 'sgl-llama-3.1-8b',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#22819: KV cache corruption at radix cache block boundary with --enable-deterministic-inference (prefix_len == block_size)',
      url: 'https://github.com/sgl-project/sglang/issues/22819',
    },
  ],
  docs: {
    problem:
      'A server run with `--enable-deterministic-inference` to get reproducible outputs returns different text for the ' +
      'same request once a prefix exactly one KV block long is served from the radix cache: 9 of 11 requests diverged.',
    exceptions:
      'Only prefixes whose length equals the block size were reported; which traffic produces them is a request-time ' +
      'fact, so the finding is "possibly affected". Whether runs without deterministic inference corrupt the same way is ' +
      'not established (without it, outputs are not expected to match bit for bit, so the report could not tell). ' +
      'SGLang 0.5.21 made a Rust radix tree the default (PR #39627); whether that changes this is not established.',
  },
});
