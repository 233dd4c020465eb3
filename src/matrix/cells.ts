/**
 * Runs cells: launch a configuration (or reuse the server a slot holds for the same launch
 * arguments: server-slots.ts), probe it (re-probing a PASS on the same server until it has the
 * rounds the caller asked for; a FAIL is trusted), journal the result. Results are memoized by
 * configuration, so asking twice — in another phase, or in a resumed run — never runs twice; only
 * a PASS that ran with fewer rounds than a later caller needs gets a second cell for the missing
 * rounds (a "recheck"). At most `executor.slots` cells run at once, each on its own slot.
 */
import type { MatrixProbe, ProbeResult } from './cell-probe.js';
import type { CellResult, Phase } from './cell-result.js';
import type { Executor, LaunchResult, ServerFate, ServerHandle } from './executor.js';
import type { Journal } from './journal.js';
import type { LaunchSpec } from './launch-spec.js';
import { ServerSlots } from './server-slots.js';
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
  /** Equal for two configurations exactly when they launch the same server (launch reuse). */
  launchKey(config: Config): string;
  /** Request-level fields of a configuration's probe requests (request-scope factors). */
  requestFor(config: Config): Record<string, unknown>;
  /** The configurations that share its launch and are probed with it (its other request-level variants). */
  siblingsOf?(config: Config): Config[];
  executor: Executor;
  probe: MatrixProbe;
  probeOptions: Record<string, unknown>;
  /** What the probe recorded from the reference for a configuration's request fields. */
  referenceFor(config: Config): unknown;
  /** A live reference server that scores cells (a reference URL, or the kept-alive reference). */
  scorerUrl?: string;
  journal?: Journal;
  /** Cells of an earlier, interrupted run of the same plan. */
  previous?: readonly CellResult[];
  signal: AbortSignal;
  onCell?: (cell: CellResult, reused: boolean) => void;
}

interface JobMember {
  id: string;
  config: number[];
  firstRound: number;
  recheckOf?: string;
  resolve(cell: CellResult): void;
  reject(e: unknown): void;
}

const memoKey = (config: Config, recheck: boolean): string => `${configKey(config)}${recheck ? '#recheck' : ''}`;

export class CellRunner {
  private readonly o: CellRunnerOptions;
  private readonly known = new Map<string, Promise<CellResult>>();
  private readonly previous = new Map<string, CellResult>();
  private readonly order: string[] = [];
  private readonly slots: ServerSlots;
  private nextId: number;
  /** Launch attempts made by this process. */
  launched = 0;

  constructor(options: CellRunnerOptions) {
    this.o = options;
    for (const cell of options.previous ?? []) this.previous.set(memoKey(cell.config, cell.recheckOf !== undefined), cell);
    this.nextId = (options.previous ?? []).reduce((n, c) => Math.max(n, Number(c.id.replace(/\D/g, '')) || 0), 0) + 1;
    this.slots = new ServerSlots(options.executor.slots);
  }

  /** Takes a running server (the reference's) into the first slot, for cells with its launch key. */
  adopt(key: string, server: ServerHandle, launchedBy: string): void {
    this.slots.keep(0, key, server, launchedBy);
  }

  /** Stops the servers kept up for reuse; the run calls this however it ends. */
  close(): Promise<void> {
    return this.slots.close();
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

  /**
   * The cell of a configuration. Unknown, it runs in a job with the configuration's siblings —
   * the other request-level variants of the same launch, when the plan has request-scope
   * factors — so one launch answers them all and a later question about a sibling costs nothing.
   */
  private cell(config: Config, phase: Phase, rounds: number, recheckOf?: CellResult): Promise<CellResult> {
    const known = this.known.get(memoKey(config, recheckOf !== undefined));
    if (known) return known;
    const members: JobMember[] = [];
    const register = (c: Config, recheck?: CellResult): Promise<CellResult> | undefined => {
      const key = memoKey(c, recheck !== undefined);
      if (this.known.has(key)) return undefined;
      this.order.push(key);
      const earlier = this.previous.get(key);
      if (earlier) {
        const done = Promise.resolve(earlier);
        this.known.set(key, done);
        this.o.onCell?.(earlier, true);
        return done;
      }
      let resolve!: (cell: CellResult) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<CellResult>((ok, fail) => ((resolve = ok), (reject = fail)));
      this.known.set(key, promise);
      const id = `c${String(this.nextId++).padStart(3, '0')}`;
      // a recheck continues the round numbering, so its prompts are new to this configuration
      members.push({ id, config: [...c], firstRound: recheck?.probes.length ?? 0, ...(recheck ? { recheckOf: recheck.id } : {}), resolve, reject });
      return promise;
    };
    const mine = register(config, recheckOf) as Promise<CellResult>;
    if (!recheckOf)
      for (const sibling of this.o.siblingsOf?.(config) ?? []) register(sibling)?.catch(() => {}); // awaited by results()
    if (members.length) void this.runJob(members, phase, rounds);
    return mine;
  }

  /** Launches (or reuses) the members' server once and probes each member on it, in order. */
  private async runJob(members: JobMember[], phase: Phase, rounds: number): Promise<void> {
    const key = this.o.launchKey(members[0].config);
    let next = 0;
    const slot = await this.slots.acquire(key);
    try {
      const started = Date.now();
      const baseOf = (m: JobMember) => ({
        id: m.id,
        phase,
        config: m.config,
        levels: configLevels(this.o.space, m.config),
        ...(m.recheckOf ? { recheckOf: m.recheckOf } : {}),
        slot,
        startedAt: new Date().toISOString(),
      });
      if (this.o.signal.aborted) throw new RunInterrupted();
      const held = this.slots.held(slot, key);
      let server = held?.server;
      const launcher = held?.launchedBy ?? members[0].id;
      if (!held) {
        await this.slots.evict(slot);
        const first = members[0];
        const launch = await this.launch(first.id, first.config, configLevels(this.o.space, first.config), slot);
        if (this.o.signal.aborted) {
          if (launch.ok) await launch.server.stop();
          throw new RunInterrupted();
        }
        if (!launch.ok) {
          for (; next < members.length; next++) {
            const m = members[next];
            const shared = next > 0 ? { reusedServer: launcher } : {};
            m.resolve(this.finish({ ...baseOf(m), ...shared, outcome: launch.outcome, probes: [], detail: launch.detail, durationMs: Date.now() - started }));
          }
          return;
        }
        server = launch.server;
        this.slots.keep(slot, key, server, first.id);
      }
      for (; next < members.length; next++) {
        const m = members[next];
        const base = baseOf(m);
        const began = Date.now();
        const probes: ProbeResult[] = [];
        for (let round = m.firstRound; round < Math.max(rounds, m.firstRound + 1); round++) {
          const result = await this.probeOnce(server as ServerHandle, m.id, round, m.config, base.levels);
          probes.push(result);
          if (result.outcome !== 'pass') break; // a FAIL is trusted; an error ends the cell too
        }
        if (this.o.signal.aborted) throw new RunInterrupted();
        const deciding = probes[probes.length - 1];
        // the server went away under the probe (its job cancelled, its node lost): no verdict, whatever the probe said
        const fate = deciding.outcome !== 'corrupt' ? await this.fateOf(server as ServerHandle) : undefined;
        const shared = m.id !== launcher ? { reusedServer: launcher } : {};
        // the launch's time is charged to the cell that made it
        const durationMs = Date.now() - (m.id === launcher && !held ? started : began);
        m.resolve(
          this.finish(
            fate
              ? { ...base, ...shared, outcome: fate.outcome, probes, detail: `${fate.detail} (the probe said ${deciding.outcome})`, durationMs }
              : {
                  ...base,
                  ...shared,
                  outcome: deciding.outcome,
                  corruptRate: deciding.outcome === 'pass' ? 0 : deciding.corruptRate,
                  probes,
                  detail: deciding.detail,
                  ...(deciding.features?.length ? { features: deciding.features } : {}),
                  durationMs,
                },
          ),
        );
        // a server that could not answer the probe (or is gone) is not trusted with the next cell
        if (fate || deciding.outcome === 'probe-error' || deciding.outcome === 'timeout') {
          await this.slots.evict(slot);
          const why = fate ? fate.outcome : deciding.outcome;
          for (next++; next < members.length; next++) {
            const rest = members[next];
            const detail = `not probed: the server it shared with ${m.id} failed that probe (${why})`;
            rest.resolve(this.finish({ ...baseOf(rest), reusedServer: launcher, outcome: 'probe-error', probes: [], detail, durationMs: 0 }));
          }
        }
      }
    } catch (e) {
      await this.slots.evict(slot);
      for (; next < members.length; next++) members[next].reject(e);
    } finally {
      try {
        if (this.o.executor.idleServersBlock) await this.slots.evict(slot);
      } finally {
        this.slots.release(slot);
      }
    }
  }

  /** What ended the server on its own while it was probed, if anything did (an executor error is not a verdict either). */
  private async fateOf(server: ServerHandle): Promise<ServerFate | undefined> {
    if (!server.fate) return undefined;
    try {
      return await server.fate();
    } catch (e) {
      return { outcome: 'launch-failed', detail: `could not tell whether the server still ran: ${(e as Error)?.message ?? String(e)}` };
    }
  }

  private async launch(id: string, config: number[], levels: Record<string, string>, slot: number): Promise<LaunchResult> {
    const spec = this.o.launchFor(config);
    this.launched++;
    try {
      return await this.o.executor.launch({ cellId: id, config, levels, argv: spec.argv, env: spec.env, slot, gpuCount: spec.gpus }, this.o.signal);
    } catch (e) {
      return { ok: false, outcome: 'launch-failed', detail: `executor error: ${(e as Error)?.message ?? String(e)}` };
    }
  }

  private finish(cell: CellResult): CellResult {
    this.o.journal?.append({ type: 'cell', cell });
    this.o.onCell?.(cell, false);
    return cell;
  }

  private async probeOnce(server: ServerHandle, cellId: string, round: number, config: Config, levels: Record<string, string>): Promise<ProbeResult> {
    const request = this.o.requestFor(config);
    try {
      return await this.o.probe.probeCell(server.baseUrl, {
        cellId,
        round,
        reference: this.o.referenceFor(config),
        levels,
        ...(Object.keys(request).length ? { request } : {}),
        ...(this.o.scorerUrl ? { scorerUrl: this.o.scorerUrl } : {}),
        options: this.o.probeOptions,
        signal: this.o.signal,
      });
    } catch (e) {
      return { outcome: 'probe-error', detail: `probe threw: ${(e as Error)?.message ?? String(e)}` };
    }
  }
}
