/**
 * The hazard registry: every catalog entry, sorted by id, with ids and aliases checked unique at
 * import time. Add a hazard by adding its file under catalog/ and one line here.
 */
import type { Hazard } from './hazard.js';
import { FL000 } from './catalog/FL000-flag-not-accepted.js';
import { FL001 } from './catalog/FL001-swa-specdec-bf16q-fp8kv-trtllm.js';
import { FL002 } from './catalog/FL002-bf16q-fp8kv-scale-bookkeeping.js';
import { FL003 } from './catalog/FL003-trtllm-gen-multitoken-reduction-index.js';
import { FL004 } from './catalog/FL004-xqa-spec-swa-window-start.js';
import { FL005 } from './catalog/FL005-specdec-async-scheduling-garbage.js';
import { FL006 } from './catalog/FL006-specdec-pp-no-async-scheduling.js';
import { FL007 } from './catalog/FL007-turboquant-kv-specdec-full-cudagraph.js';
import { FL008 } from './catalog/FL008-trtllm-gen-page-size-over-128.js';
import { FL009 } from './catalog/FL009-reasoning-structured-output-specdec.js';
import { FL010 } from './catalog/FL010-sm12x-sinks-prefill.js';
import { FL011 } from './catalog/FL011-ct-fp8kv-scale-not-propagated.js';
import { FL012 } from './catalog/FL012-ar-rmsnorm-quant-fusion.js';
import { FL013 } from './catalog/FL013-specdec-penalties-dropped.js';
import { FL014 } from './catalog/FL014-hybrid-ngram-stale-recurrent-state.js';
import { FL015 } from './catalog/FL015-noncg-wrapper-captured-in-graph.js';
import { FL016 } from './catalog/FL016-mla-chunked-context-merge.js';
import { FL017 } from './catalog/FL017-triton-swa-v-blocks-outside-window.js';
import { FL018 } from './catalog/FL018-specdec-chunked-prefill-logprobs.js';
import { FL019 } from './catalog/FL019-specdec-raw-logprobs-modified-logits.js';
import { FL020 } from './catalog/FL020-mtp-sync-scheduling-stale-drafts.js';
import { FL021 } from './catalog/FL021-mm-cache-hash-ignores-decode-options.js';
import { FL022 } from './catalog/FL022-gdn-mtp-acceptance-collapse.js';
import { FL023 } from './catalog/FL023-hybrid-prefix-cache-mtp-eagle-block.js';
import { FL024 } from './catalog/FL024-hybrid-async-align-accepted-count-race.js';
import { FL025 } from './catalog/FL025-fi-fp8kv-cudagraph-sm120.js';
import { FL026 } from './catalog/FL026-fa3-fp8kv-long-context.js';
import { FL027 } from './catalog/FL027-cascade-attention-a100.js';
import { FL028 } from './catalog/FL028-lora-prefix-cache-name-collision.js';
import { FL029 } from './catalog/FL029-lmcache-mp-lora-shared-salt.js';
import { FL030 } from './catalog/FL030-lmcache-packed-kv-layout.js';
import { FL031 } from './catalog/FL031-dsv4-spec-breakable-cudagraph.js';
import { FL032 } from './catalog/FL032-mtp-dcp-full-cudagraph-mla.js';
import { FL033 } from './catalog/FL033-hybrid-align-spec-kv-connector.js';
import { FL034 } from './catalog/FL034-mtp-prompt-logprobs.js';
import { FL035 } from './catalog/FL035-fp8-e5m2-kv-qwen-vl.js';
import { FL036 } from './catalog/FL036-fi-sm120-native-q-scale.js';
import { FL037 } from './catalog/FL037-nvfp4-kv-sm120-v-scale-swizzle.js';
import { FL038 } from './catalog/FL038-nvfp4-kv-trtllm-b200.js';
import { FL039 } from './catalog/FL039-kvcached-prefix-cache-swa.js';
import { FL040 } from './catalog/FL040-ngram-tool-call-short-lookup.js';
import { FL041 } from './catalog/FL041-offload-per-token-head-kv-scales.js';
import { FL042 } from './catalog/FL042-xqa-nvfp4-kv-sm120-spec-verify.js';
import { FL043 } from './catalog/FL043-simple-cpu-offload-races.js';
import { FL044 } from './catalog/FL044-glm-dsa-dcp-random-tokens.js';
import { FL045 } from './catalog/FL045-kimi-k3-nixl-pd.js';
import { LLAMA_CPP_HAZARDS } from './catalog/llama-cpp.js';
import { SGLANG_HAZARDS } from './catalog/sglang.js';

function registry(list: Hazard[]): readonly Hazard[] {
  const sorted = [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = new Set<string>();
  const aliases = new Set<string>();
  for (const h of sorted) {
    if (ids.has(h.id)) throw new Error(`duplicate hazard id ${h.id}`);
    if (aliases.has(h.alias)) throw new Error(`duplicate hazard alias ${h.alias}`);
    ids.add(h.id);
    aliases.add(h.alias);
  }
  return Object.freeze(sorted);
}

export const hazards: readonly Hazard[] = registry([
  FL000,
  FL001,
  FL002,
  FL003,
  FL004,
  FL005,
  FL006,
  FL007,
  FL008,
  FL009,
  FL010,
  FL011,
  FL012,
  FL013,
  FL014,
  FL015,
  FL016,
  FL017,
  FL018,
  FL019,
  FL020,
  FL021,
  FL022,
  FL023,
  FL024,
  FL025,
  FL026,
  FL027,
  FL028,
  FL029,
  FL030,
  FL031,
  FL032,
  FL033,
  FL034,
  FL035,
  FL036,
  FL037,
  FL038,
  FL039,
  FL040,
  FL041,
  FL042,
  FL043,
  FL044,
  FL045,
  ...SGLANG_HAZARDS,
  ...LLAMA_CPP_HAZARDS,
]);

/** Finds a hazard by id (case-insensitive) or alias. */
export function findHazard(idOrAlias: string): Hazard | undefined {
  const key = idOrAlias.trim();
  return hazards.find((h) => h.id.toLowerCase() === key.toLowerCase() || h.alias === key);
}
