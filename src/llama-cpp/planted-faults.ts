/**
 * Faults planted in the llama.cpp runner on purpose, so a calibration can show the oracle reads a
 * real engine's corruption as CORRUPT (bench/real-noise.ts): never on unless asked for with
 * `--planted-fault`, and named in the start-up summary when on.
 *
 *   wrong-token:EVERY:FROM  from sequence position FROM on, every EVERY-th generated token is the
 *                           row's second-best instead of the one chosen (its logprob stays the true one)
 *   stale-prefix:BLOCK      prefix reuse keeps BLOCK tokens past the first difference from the cached
 *                           prompt, so the new prompt reads another prompt's K/V there (a stale block)
 */
import { UserError } from '../core/errors.js';

export interface PlantedFaults {
  wrongToken?: { every: number; from: number };
  stalePrefix?: { block: number };
}

const USAGE =
  'use --planted-fault wrong-token:EVERY:FROM (e.g. wrong-token:8:160) or stale-prefix:BLOCK (e.g. stale-prefix:16); comma-separate several';

/** "wrong-token:8:160,stale-prefix:16" → the faults it names. */
export function parsePlantedFaults(spec: string): PlantedFaults {
  const out: PlantedFaults = {};
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [kind, ...numbers] = part.split(':');
    const n = numbers.map(Number);
    const positive = n.every((x) => Number.isInteger(x) && x >= 0) && n.length > 0 && n[0] >= 1;
    if (kind === 'wrong-token' && n.length === 2 && positive) out.wrongToken = { every: n[0], from: n[1] };
    else if (kind === 'stale-prefix' && n.length === 1 && positive) out.stalePrefix = { block: n[0] };
    else
      throw new UserError(`--planted-fault ${part} is not a planted fault`, { code: 'E_USAGE', hint: USAGE });
  }
  return out;
}

/** The planted faults as the start-up summary names them ('' when none). */
export function plantedFaultsText(f: PlantedFaults): string {
  const parts = [
    ...(f.wrongToken ? [`wrong-token every ${f.wrongToken.every} from position ${f.wrongToken.from}`] : []),
    ...(f.stalePrefix ? [`stale-prefix block ${f.stalePrefix.block}`] : []),
  ];
  return parts.length ? `PLANTED FAULTS: ${parts.join(', ')}` : '';
}

/** The token to emit at sequence position `position` for the `count`-th generated token (0-based). */
export function plantedToken(
  f: PlantedFaults,
  row: Float32Array,
  chosen: number,
  position: number,
  count: number,
): number {
  const w = f.wrongToken;
  if (!w || position < w.from || (count + 1) % w.every !== 0) return chosen;
  let best = -1;
  for (let i = 0; i < row.length; i++) if (i !== chosen && (best < 0 || row[i] > row[best])) best = i;
  return best < 0 ? chosen : best;
}

/** Cached tokens kept for a new prompt: with a stale-prefix fault, a block past the true shared prefix (while the cache and the prompt have it). */
export function plantedKeep(f: PlantedFaults, shared: number, cached: number, promptLength: number): number {
  if (!f.stalePrefix || shared === 0 || shared >= cached) return shared;
  return Math.min(shared + f.stalePrefix.block, cached, promptLength - 1);
}
