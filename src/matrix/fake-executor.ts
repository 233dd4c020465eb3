/**
 * A fake serving stack for tests and simulations: hidden fault interactions decide which
 * configurations corrupt, a configurable share of probes of a corrupt server come back PASS
 * (the one-sided noise of silent-corruption probes), and chosen levels fail to launch.
 * Randomness is a hash of (seed, configuration, launch of that configuration, round), so results
 * do not depend on the order in which parallel cells finish, and a second launch of the same
 * configuration draws afresh.
 */
import { createRng } from '../core/rng.js';
import type { CellProbeContext, MatrixProbe, ProbeResult } from './cell-probe.js';
import type { Executor, LaunchRequest, LaunchResult } from './executor.js';

export interface FakeWorldOptions {
  /** Hidden minimal failing interactions, by name: a configuration containing one corrupts. */
  faults: Record<string, string>[];
  /** Level combinations that hide every fault: a configuration containing one never corrupts. */
  maskers?: Record<string, string>[];
  /** Chance that one probe round of a corrupt server reports PASS. */
  missRate?: number;
  /** Level combinations whose launch fails (e.g. [{ block_size: "64" }] for a bad flag). */
  launchFailures?: Record<string, string>[];
  /** Level combinations whose server starts but never gets healthy. */
  launchTimeouts?: Record<string, string>[];
  /** Level combinations whose probe errors (the server answers garbage). */
  probeErrors?: Record<string, string>[];
  /** Share of requests reported corrupt when a probe sees corruption. */
  corruptRate?: number;
  slots?: number;
  seed?: number;
}

export interface FakeWorld {
  executor: Executor;
  probe: MatrixProbe;
  /** Launch attempts, including failed ones. */
  readonly launches: number;
  /** Servers started and not stopped yet (a leak if non-zero after a run). */
  readonly live: number;
  /** Configurations launched (factor → level), in order, failed launches included. */
  readonly launchLog: Record<string, string>[];
  /** Configurations probed, in order, with the round and the scorer offered (and whether it was up). */
  readonly probes: { levels: Record<string, string>; round: number; result: ProbeResult; scorer?: { url: string; live: boolean } }[];
  /** Slot of every launch, in order. */
  readonly launchSlots: number[];
}

const contains = (levels: Record<string, string>, pattern: Record<string, string>): boolean =>
  Object.entries(pattern).every(([f, l]) => levels[f] === l);

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function createFakeWorld(options: FakeWorldOptions): FakeWorld {
  const servers = new Map<string, { levels: Record<string, string>; nth: number }>();
  const launchesOf = new Map<string, number>();
  let launches = 0;
  let next = 0;
  const probes: FakeWorld['probes'] = [];
  const launchLog: Record<string, string>[] = [];
  const launchSlots: number[] = [];
  const seed = options.seed ?? 1;
  const chance = (levels: Record<string, string>, nth: number, round: number): number =>
    createRng(fnv1a(`${seed}|${JSON.stringify(levels)}|${nth}|${round}`)).next();

  const executor: Executor = {
    slots: options.slots ?? 1,
    async launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult> {
      launches++;
      launchLog.push(request.levels);
      launchSlots.push(request.slot);
      if (signal.aborted) return { ok: false, outcome: 'launch-failed', detail: 'aborted before launch' };
      await Promise.resolve();
      if ((options.launchFailures ?? []).some((p) => contains(request.levels, p)))
        return { ok: false, outcome: 'launch-failed', detail: 'fake: server exited with status 2 (unrecognized argument)' };
      if ((options.launchTimeouts ?? []).some((p) => contains(request.levels, p)))
        return { ok: false, outcome: 'timeout', detail: 'fake: server not healthy before the ready timeout' };
      const url = `fake://server-${next++}`;
      const key = JSON.stringify(request.levels);
      const nth = launchesOf.get(key) ?? 0;
      launchesOf.set(key, nth + 1);
      servers.set(url, { levels: request.levels, nth });
      return {
        ok: true,
        server: {
          baseUrl: url,
          stop: async () => {
            servers.delete(url);
          },
        },
      };
    },
  };

  const probe: MatrixProbe = {
    async captureReference(url: string) {
      return { fakeReference: url };
    },
    async probeCell(url: string, context: CellProbeContext): Promise<ProbeResult> {
      const server = servers.get(url);
      if (!server) return { outcome: 'probe-error', detail: `fake: no server at ${url}` };
      // a shared server was launched for another cell: the cell's own levels (request-scope ones) decide
      const levels = context.levels ?? server.levels;
      const { nth } = server;
      let result: ProbeResult;
      if ((options.probeErrors ?? []).some((p) => contains(levels, p))) result = { outcome: 'probe-error', detail: 'fake: HTTP 500' };
      else if (!options.faults.some((f) => contains(levels, f)) || (options.maskers ?? []).some((m) => contains(levels, m)))
        result = { outcome: 'pass', corruptRate: 0, requests: 8 };
      else if (chance(levels, nth, context.round) < (options.missRate ?? 0)) result = { outcome: 'pass', corruptRate: 0, requests: 8 };
      else result = { outcome: 'corrupt', corruptRate: options.corruptRate ?? 0.25, requests: 8 };
      const scorer = context.scorerUrl ? { url: context.scorerUrl, live: servers.has(context.scorerUrl) } : undefined;
      probes.push({ levels, round: context.round, result, ...(scorer ? { scorer } : {}) });
      return result;
    },
  };

  return {
    executor,
    probe,
    get launches() {
      return launches;
    },
    get live() {
      return servers.size;
    },
    probes,
    launchLog,
    launchSlots,
  };
}
