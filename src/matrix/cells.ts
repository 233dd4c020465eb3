/**
 * Runs cells: launch a configuration, probe it (re-probing a PASS on the same server until it
 * has the rounds the caller asked for; a FAIL is trusted), stop it, journal the result. Results
 * are memoized by configuration, so asking twice — in another phase, or in a resumed run —
 * never launches twice; only a PASS that ran with fewer rounds than a later caller needs gets a
 * second, separate launch for the missing rounds (a "recheck"). At most `executor.slots` cells
 * run at once, each on its own slot.
 */
import type { MatrixProbe, ProbeResult } from './cell-probe.js';
import type { CellResult, Phase } from './cell-result.js';
import type { Executor } from './executor.js';
import type { Journal } from './journal.js';
import type { LaunchSpec } from './launch-spec.js';
import { configKey, configLevels, type Config, type FactorSpace } from './space.js';

/** Thrown when the run is interrupted (Ctrl-C): finished cells are journaled, the rest are not. */
export class RunInterrupted extends Error {
  constructor() {
    super('the matrix run was interrupted');
    this.name = 'RunInterrupted';
  }
}

export interface CellRunnerOptions {
  space: FactorSpace;
  launchFor(config: Config): LaunchSpec;
  executor: Executor;
  probe: MatrixProbe;
  probeOptions: Record<string, unknown>;
  reference: unknown;
  /** A live reference server that scores cells (a reference URL, or the kept-alive reference). */
  scorerUrl?: string;
  journal?: Journal;
  /** Cells of an earlier, interrupted run of the same plan. */
  previous?: readonly CellResult[];
  signal: AbortSignal;
  onCell?: (cell: CellResult, reused: boolean) => void;
}

const memoKey = (config: Config, recheck: boolean): string => `${configKey(config)}${recheck ? '#recheck' : ''}`;

export class CellRunner {
  private readonly o: CellRunnerOptions;
  private readonly known = new Map<string, Promise<CellResult>>();
  private readonly previous = new Map<string, CellResult>();
  private readonly order: string[] = [];
  private readonly freeSlots: number[];
  private readonly waiting: ((slot: number) => void)[] = [];
  private nextId: number;
  /** Launch attempts made by this process. */
  launched = 0;

  constructor(options: CellRunnerOptions) {
    this.o = options;
    for (const cell of options.previous ?? []) this.previous.set(memoKey(cell.config, cell.recheckOf !== undefined), cell);
    this.nextId = (options.previous ?? []).reduce((n, c) => Math.max(n, Number(c.id.replace(/\D/g, '')) || 0), 0) + 1;
    this.freeSlots = Array.from({ length: Math.max(1, options.executor.slots) }, (_, i) => i);
  }

  /** Every cell requested so far, in order of first request. */
  async results(): Promise<CellResult[]> {
    return Promise.all(this.order.map((key) => this.known.get(key) as Promise<CellResult>));
  }

  /** Results reused from the journal rather than launched. */
  get reusedCount(): number {
    return this.order.filter((k) => this.previous.has(k)).length;
  }

  /**
   * The cell of a configuration, launched unless known; a PASS needs `rounds` probe rounds in a
   * row. When the configuration already passed with fewer, the answer is its recheck: a second
   * launch probed for the missing rounds (its verdict is the configuration's from then on).
   */
  async run(config: Config, phase: Phase, rounds: number): Promise<CellResult> {
    const first = await this.cell(config, phase, rounds);
    if (first.outcome !== 'pass' || first.probes.length >= rounds) return first;
    const recheck = await this.cell(config, phase, rounds, first);
    // a FAIL is trusted; a recheck without a verdict leaves the earlier PASS as the best answer
    return recheck.outcome === 'corrupt' ? recheck : first;
  }

  runAll(configs: readonly Config[], phase: Phase, rounds: number): Promise<CellResult[]> {
    return Promise.all(configs.map((c) => this.run(c, phase, rounds)));
  }

  private cell(config: Config, phase: Phase, rounds: number, recheckOf?: CellResult): Promise<CellResult> {
    const key = memoKey(config, recheckOf !== undefined);
    const known = this.known.get(key);
    if (known) return known;
    this.order.push(key);
    const earlier = this.previous.get(key);
    let promise: Promise<CellResult>;
    if (earlier) {
      promise = Promise.resolve(earlier);
      this.o.onCell?.(earlier, true);
    } else {
      const id = `c${String(this.nextId++).padStart(3, '0')}`;
      // a recheck continues the round numbering, so its prompts are new to this configuration
      const from = recheckOf?.probes.length ?? 0;
      promise = this.launchAndProbe(id, [...config], phase, from, rounds, recheckOf?.id);
    }
    this.known.set(key, promise);
    return promise;
  }

  private acquire(): Promise<number> {
    const slot = this.freeSlots.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the next waiting cell, or back to the pool (lowest slot first). */
  private release(slot: number): void {
    const next = this.waiting.shift();
    if (next) return next(slot);
    this.freeSlots.push(slot);
    this.freeSlots.sort((a, b) => a - b);
  }

  private async launchAndProbe(
    id: string,
    config: number[],
    phase: Phase,
    firstRound: number,
    rounds: number,
    recheckOf: string | undefined,
  ): Promise<CellResult> {
    const slot = await this.acquire();
    try {
      if (this.o.signal.aborted) throw new RunInterrupted();
      const started = Date.now();
      const levels = configLevels(this.o.space, config);
      const spec = this.o.launchFor(config);
      const base = { id, phase, config, levels, ...(recheckOf ? { recheckOf } : {}), slot, startedAt: new Date(started).toISOString() };
      this.launched++;
      let launch;
      try {
        launch = await this.o.executor.launch({ cellId: id, config, levels, argv: spec.argv, env: spec.env, slot }, this.o.signal);
      } catch (e) {
        launch = { ok: false as const, outcome: 'launch-failed' as const, detail: `executor error: ${(e as Error)?.message ?? String(e)}` };
      }
      if (this.o.signal.aborted) {
        if (launch.ok) await launch.server.stop();
        throw new RunInterrupted();
      }
      let cell: CellResult;
      if (!launch.ok) {
        cell = { ...base, outcome: launch.outcome, probes: [], detail: launch.detail, durationMs: Date.now() - started };
      } else {
        const probes: ProbeResult[] = [];
        try {
          for (let round = firstRound; round < Math.max(rounds, firstRound + 1); round++) {
            const result = await this.probeOnce(launch.server.baseUrl, id, round);
            probes.push(result);
            if (result.outcome !== 'pass') break; // a FAIL is trusted; an error ends the cell too
          }
        } finally {
          await launch.server.stop();
        }
        if (this.o.signal.aborted) throw new RunInterrupted();
        const deciding = probes[probes.length - 1];
        cell = {
          ...base,
          outcome: deciding.outcome,
          corruptRate: deciding.outcome === 'pass' ? 0 : deciding.corruptRate,
          probes,
          detail: deciding.detail,
          durationMs: Date.now() - started,
        };
      }
      this.o.journal?.append({ type: 'cell', cell });
      this.o.onCell?.(cell, false);
      return cell;
    } finally {
      this.release(slot);
    }
  }

  private async probeOnce(url: string, cellId: string, round: number): Promise<ProbeResult> {
    try {
      return await this.o.probe.probeCell(url, {
        cellId,
        round,
        reference: this.o.reference,
        ...(this.o.scorerUrl ? { scorerUrl: this.o.scorerUrl } : {}),
        options: this.o.probeOptions,
        signal: this.o.signal,
      });
    } catch (e) {
      return { outcome: 'probe-error', detail: `probe threw: ${(e as Error)?.message ?? String(e)}` };
    }
  }
}
