import { defineHazard } from '../hazard.js';
import { multimodalModel } from '../conditions/model-type.js';
import { requestsUse } from '../conditions/request-time.js';
import { mmProcessorCache } from '../conditions/serving-features.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #49975: the multimodal cache hash ignored how an image was decoded. */
export const FL021 = defineHazard({
  id: 'FL021',
  alias: 'mm-cache-hash-ignores-decode-options',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'the multimodal processor cache keys images by their bytes only, so the same image sent with another image_mode or rgba_background_color gets the first request’s cached features (vLLM builds before PR #49975)',
  mechanism:
    'Since PR #29621 the processor cache hashes an image’s encoded bytes rather than its decoded pixels. The decode ' +
    'options that change the pixels (image_mode, rgba_background_color in media_io_kwargs) were not part of the hash, ' +
    'so two requests with the same bytes but different options collided and the second one was served the first one’s ' +
    'processed features. PR #49975 (merged 2026-07-27) adds the decode options to the hash when they altered the image.',
  affected: {
    vllm: 'from PR #29621 (Dec 2025) until PR #49975 (merged 2026-07-27); 0.28.0 and later contain the fix',
  },
  confidence: 'confirmed',
  conditions: [
    multimodalModel(),
    mmProcessorCache(),
    requestsUse({
      name: 'image-decode-options-vary',
      what: 'requests send the same image bytes with different decode options (image_mode, rgba_background_color)',
    }),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'PR #49975',
      containsFixFrom: {
        version: '0.28.0',
        why: 'PR #49975 merged on 2026-07-27; main had moved past 0.27.2rc1 by 2026-08-15 (nightly 0.27.2rc1.dev110, vllm#52448) and 0.28.0 was out by 2026-08-26 (vllm#53912)',
      },
      record: 'hash by bytes from PR #29621 (Dec 2025), fixed by PR #49975 (2026-07-27)',
    }),
  ],
  locateAt: 'mm-processor-cache',
  remedies: [
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.28.0' } },
      why: 'a release cut after PR #49975 merged',
    },
    {
      id: 'no-mm-processor-cache',
      change: { set: { mm_processor_cache_gb: 0 } },
      why: 'with no processor cache every image is processed for its own request',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve Qwen/Qwen2.5-VL-7B-Instruct --max-model-len 32768',
      model: 'qwen2.5-vl-7b-instruct',
      points: 'Qwen/Qwen2.5-VL-7B-Instruct',
      possibly: true,
    },
    clean: {
      command: 'vllm serve Qwen/Qwen2.5-VL-7B-Instruct --max-model-len 32768 --mm-processor-cache-gb 0',
      model: 'qwen2.5-vl-7b-instruct',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm PR #49975: Include media IO config in MM cache hash',
      url: 'https://github.com/vllm-project/vllm/pull/49975',
    },
    {
      title:
        'vllm-project/vllm PR #29621: hash image bytes instead of pixel values in the multimodal preprocessing cache',
      url: 'https://github.com/vllm-project/vllm/pull/29621',
    },
  ],
  docs: {
    problem:
      'An RGBA image sent once with a white and once with a black background (or in another image_mode) is answered as if ' +
      'it were the first one: the second request receives the cached features of the first. Nothing is logged.',
    exceptions:
      'It needs requests that vary decode options for the same bytes, which the launch cannot show: the finding is ' +
      '"possibly affected". Releases before 0.28.0 are unknown (the first release with PR #49975, and the first with ' +
      'PR #29621, are not established).',
  },
});
