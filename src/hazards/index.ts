/**
 * The hazard registry: every catalog entry, sorted by id, with ids and aliases checked unique at
 * import time. Add a hazard by adding its file under catalog/ and one line here.
 */
import type { Hazard } from './hazard.js';
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
  ...SGLANG_HAZARDS,
]);

/** Finds a hazard by id (case-insensitive) or alias. */
export function findHazard(idOrAlias: string): Hazard | undefined {
  const key = idOrAlias.trim();
  return hazards.find((h) => h.id.toLowerCase() === key.toLowerCase() || h.alias === key);
}
