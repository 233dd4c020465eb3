/**
 * `faultline matrix PLAN.yaml [--out RUN_DIR] [--resume RUN_DIR] [--dry-run] [--parallel N]
 * [--format text|json] [--quiet]`: launch the plan's server configurations (reference, the
 * most-enabled ones, a t-way covering array, then adaptive localization), probe each against
 * the reference, and report the minimal failing interactions with their verified remedies.
 *
 * stdout carries only the report (text or JSON); progress goes to stderr. Ctrl-C stops every
 * server of the run and leaves a journal that `--resume RUN_DIR` continues (SIGTERM, SIGHUP and
 * SIGQUIT alike); `--cleanup RUN_DIR` stops servers a killed run left behind.
 * Exit: 0 clean, 1 corruption found, 2 usage or plan error, 3 inconclusive, 128 + signal interrupted.
 */
import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';
import { buildAttribution } from '../../matrix/attribution.js';
import { RunInterrupted } from '../../matrix/cells.js';
import { maxPassRounds } from '../../matrix/confirmation.js';
import { formatAttributionJson, formatAttributionText, phaseLabel } from '../../matrix/format-text.js';
import { exitCodeForSignal, handleInterrupts } from '../../matrix/interrupt.js';
import { Journal, type JournalRecord } from '../../matrix/journal.js';
import { createLocalExecutor } from '../../matrix/local-executor.js';
import { executorForPlan } from '../../matrix/executors/select.js';
import type { MatrixPlan } from '../../matrix/plan-compile.js';
import { createEngineProbe, parseProbeOptions } from '../../matrix/probe-cell.js';
import { hasRequestScope } from '../../matrix/request-variants.js';
import { runMatrix, type RunEvent } from '../../matrix/run.js';
import { currentProcess } from '../../matrix/run-owner.js';
import { RUN_ID_ENV } from '../../matrix/survivors.js';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { ATTRIBUTION_FILE } from '../../report/inputs/matrix-run.js';
import { commandLine } from '../../report/provenance.js';
import { writeProducedReport } from '../../report/write.js';
import type { CliIO } from '../io.js';
import { LateWrites, prepareOutputDir, prepareOutputFile } from '../output-paths.js';
import { createProgress } from '../progress.js';
import { describeDryRun, dryRunJson } from './matrix-dry-run.js';
import { addLaunchPlanOptions, type LaunchPlanOptions } from './plan.js';
import { GENERATED_PLAN_FILE, planSource } from './matrix-from.js';
import { cleanupRun, describeSurvivors, journalServerGroups, stopLeftServers } from './matrix-processes.js';
import type { RegisterCommand } from './index.js';

interface MatrixOptions {
  out?: string;
  cleanup?: string;
  resume?: string;
  dryRun?: boolean;
  parallel?: string;
  format: string;
  quiet?: boolean;
  html?: string;
  from?: string;
}

type MatrixCommandOptions = MatrixOptions & Partial<LaunchPlanOptions>;

export const EXIT = { clean: 0, corrupt: 1, usage: 2, inconclusive: 3 } as const;

function parallelOf(value: string | undefined, plan: MatrixPlan): number {
  if (value === undefined) return plan.executor.parallel;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 64)
    throw new UserError(`--parallel ${JSON.stringify(value)} must be an integer from 1 to 64`, { hint: 'servers run at once, e.g. --parallel 2' });
  return n;
}

function defaultRunDir(cwd: string): string {
  return resolve(cwd, `faultline-matrix-${new Date().toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z')}`);
}

/** The resumed run must be the same plan: its answers would otherwise be mixed with another plan's. */
function checkResumable(records: JournalRecord[], plan: MatrixPlan, runDir: string): void {
  const head = records[0];
  if (head?.type === 'run' && head.planHash !== plan.hash)
    throw new UserError(`${runDir} was run with a different plan (${head.planFile})`, {
      code: 'E_RUN_DIR',
      hint: 'resume with the plan file the run started with, unchanged, or start a new run with --out',
    });
}

export function describeCell(event: Extract<RunEvent, { type: 'cell' }>, plan: MatrixPlan): string {
  const c = event.cell;
  const changed = Object.entries(c.levels)
    .filter(([name, level]) => plan.space.levels[plan.space.names.indexOf(name)][plan.baseline[plan.space.names.indexOf(name)]] !== level)
    .map(([name, level]) => `${name}=${level}`);
  const rate = c.outcome === 'corrupt' && c.corruptRate !== undefined ? ` (${(c.corruptRate * 100).toFixed(0)}% of requests)` : '';
  const took = event.reused ? 'from the journal' : `${(c.durationMs / 1000).toFixed(1)} s`;
  return `${c.id} ${phaseLabel(c)}: ${c.outcome.toUpperCase()}${rate} [${changed.join(' ') || 'reference levels'}] ${took}`;
}

export const registerMatrix: RegisterCommand = (program: Command, io: CliIO, exit) => {
  addLaunchPlanOptions(
    program
      .command('matrix')
      .description('find the minimal feature combination that corrupts output, in few server launches (covering array + localization)')
      .argument('[plan]', 'the matrix plan (YAML; schema/matrix-plan.schema.json)')
      .option('--from <launch_file>', 'make the plan from a real launch, as `faultline plan` does, and run it (no plan file; the options below shape it)'),
  )
    .option('--out <dir>', 'run directory for the journal and per-cell logs (default: ./faultline-matrix-<time>)')
    .option('--resume <dir>', 'continue an interrupted run: servers it left running are stopped, finished cells are not run again')
    .option('--cleanup <dir>', "stop every server a killed run left running, cancel its Slurm jobs and delete its Kubernetes objects (no plan needed), then exit")
    .option('--dry-run', "print the plan and the covering array (and, for a Slurm or Kubernetes executor, each cell's sbatch script or Job and Service) without launching anything")
    .option('--parallel <n>', "servers at once (default: the plan's executor.parallel)")
    .option('--format <format>', 'text or json', 'text')
    .option('--quiet', 'plain progress lines, no live line')
    .option('--html <file>', 'also write a self-contained HTML report (attribution heatmap, localization steps)')
    .addHelpText(
      'after',
      `
Examples:
  faultline matrix examples/seed-b200/matrix.yaml --parallel 2 --html matrix.html
  faultline matrix examples/seed-b200/matrix.yaml --dry-run          # the covering array, nothing launched
  faultline matrix examples/seed-b200/matrix.yaml --resume RUN_DIR   # continue after Ctrl-C or a crash
  faultline matrix --cleanup RUN_DIR                                 # stop servers (and jobs) a killed run left behind
  faultline matrix --from serve.sh --model-config config.json --gpu B200 --target engine   # the plan of a launch
  faultline matrix examples/workload/matrix.yaml     # stateful traffic per cell (probe: {suite: workload})

The plan's probe.suite picks what each cell's server is probed with: window-crossing (default) or
short against goldens the reference recorded, workload (stateful traffic; each request alone on the
reference, which must stay up: reference: {keep_alive: true}), or several ("workload,window-crossing":
CORRUPT if any suite is, PASS only if all pass). A corrupt workload cell names the workload features
its corrupt requests shared (after-eviction, cancelled-neighbour, …) in every report.

Progress goes to stderr; stdout holds only the report.
SIGINT, SIGTERM, SIGHUP and SIGQUIT stop every server of the run and keep the journal (a second
signal kills them at once). Each server's process group is journaled; if faultline is killed
with SIGKILL its reaper process stops them, and --resume or --cleanup stops any that survived.
Slurm jobs and Kubernetes Jobs outlive a SIGKILL: --resume re-attaches to those still running
and cancels the rest; --cleanup cancels (scancel) or deletes (by the run's label) all of them.
Exit status: 0 clean, 1 corruption found, 2 usage or plan error, 3 inconclusive,
128 + the signal's number when interrupted (130 for Ctrl-C; resume with --resume).
`,
    )
    .action(async (planPath: string | undefined, opts: MatrixCommandOptions) => {
      if (opts.cleanup !== undefined) {
        if (planPath !== undefined || opts.from !== undefined || opts.resume || opts.out || opts.dryRun)
          throw new UserError('--cleanup RUN_DIR takes no plan and no other run option', { hint: 'faultline matrix --cleanup RUN_DIR' });
        exit(await cleanupRun(opts.cleanup, io));
        return;
      }
      if (opts.format !== 'text' && opts.format !== 'json') throw new UserError(`--format ${opts.format}: use text or json`);
      if (opts.out && opts.resume)
        throw new UserError('--out and --resume are alternatives', { hint: '--resume RUN_DIR continues in RUN_DIR itself' });
      const source = planSource(planPath, opts, io.cwd);
      const { plan } = source;
      const slots = parallelOf(opts.parallel, plan);
      const htmlPath = opts.html !== undefined && !opts.dryRun ? prepareOutputFile('--html', io.cwd, opts.html) : undefined;
      // a typo in probe: fails here, before any server starts
      parseProbeOptions(plan.probe, source.label, plan.probeAt, {
        liveReference: plan.reference.kind === 'url' || plan.reference.keepAlive,
        requestScope: hasRequestScope(plan),
      });

      if (opts.dryRun) {
        if (opts.resume) throw new UserError('--dry-run launches nothing; it cannot resume a run');
        io.out(opts.format === 'json' ? dryRunJson(plan, slots) : describeDryRun(plan, slots, source.label));
        exit(EXIT.clean);
        return;
      }

      let journal: Journal;
      let resumed: JournalRecord[] = [];
      let runDir: string;
      let runId: string | undefined;
      if (opts.resume) {
        runDir = resolve(io.cwd, opts.resume);
        const r = Journal.resume(runDir, currentProcess());
        checkResumable(r.records, plan, runDir);
        journal = r.journal;
        resumed = r.records;
        const head = resumed[0];
        runId = head?.type === 'run' ? head.runId : undefined;
      } else {
        runDir = opts.out ? prepareOutputDir('--out', io.cwd, opts.out) : defaultRunDir(io.cwd);
        runId = randomUUID();
        journal = Journal.create(runDir, {
          type: 'run',
          version: 1,
          planFile: source.label,
          planHash: plan.hash,
          faultline: VERSION,
          startedAt: new Date().toISOString(),
          runId,
          owner: currentProcess(),
        });
      }

      const planDir = source.dir;
      const executor = createLocalExecutor({
        runDir,
        slots,
        // launch.cwd is relative to the plan file (as paths in compose files are); default: where faultline runs
        cwd: plan.launch.cwd !== undefined ? resolve(planDir, plan.launch.cwd) : io.cwd,
        health: plan.launch.health,
        readyTimeoutMs: plan.launch.readyTimeoutMs,
        stopTimeoutMs: plan.launch.stopTimeoutMs,
        baseEnv: runId ? { ...io.env, [RUN_ID_ENV]: runId } : io.env,
        onServerGroup: journalServerGroups(journal),
      });
      const cellExecutor = await executorForPlan(plan, executor, {
        runDir,
        cwd: plan.launch.cwd !== undefined ? resolve(planDir, plan.launch.cwd) : io.cwd,
        record: (r) => journal.append(r),
        resumed,
        slots,
        env: io.env,
      });
      const progress = createProgress(io, { label: 'matrix', quiet: opts.quiet });
      const started = Date.now();
      let finished = 0;
      let phase = 'reference';
      const onEvent = (event: RunEvent): void => {
        const elapsed = `${Math.round((Date.now() - started) / 1000)} s`;
        if (event.type === 'phase') {
          phase = event.phase;
          progress.log(`${event.phase}: ${event.detail}`);
        } else {
          finished++;
          progress.log(describeCell(event, plan));
        }
        progress.update(`${finished} cell(s) done, ${phase}, ${elapsed}`);
      };
      progress.log(`${plan.space.names.length} factors, strength ${plan.strength}, ${slots} slot(s); run directory ${runDir}`);
      if (source.text !== undefined && !opts.resume) {
        writeFileSync(join(runDir, GENERATED_PLAN_FILE), source.text);
        progress.log(`the plan of ${opts.from}: ${join(runDir, GENERATED_PLAN_FILE)}`);
      }

      const controller = new AbortController();
      const interrupts = handleInterrupts(controller);
      try {
        if (opts.resume) {
          const left = await stopLeftServers(resumed, journal, plan.launch.stopTimeoutMs, 'resume');
          if (left.length) progress.log(`stopped ${left.length} server(s) the interrupted run left running: ${describeSurvivors(left)}`);
        }
        const run = await runMatrix({
          plan,
          executor: cellExecutor,
          probe: createEngineProbe({ rounds: maxPassRounds(plan.confirm), planDir }),
          journal,
          resumed,
          signal: controller.signal,
          onEvent,
        });
        const report = buildAttribution(run);
        progress.done(
          `${report.verdict} in ${Math.round((Date.now() - started) / 1000)} s: ${report.launches.used} launches` +
            ` (${report.launches.thisRun} this run) vs exhaustive ${report.launches.exhaustive}`,
        );
        const attributionJson = formatAttributionJson(report);
        io.out(opts.format === 'json' ? attributionJson : formatAttributionText(report));
        const code = report.verdict === 'corruption-found' ? EXIT.corrupt : report.verdict === 'clean' ? EXIT.clean : EXIT.inconclusive;
        const late = new LateWrites(io);
        // Kept in the run directory so `faultline report RUN_DIR` needs neither a replay nor the plan.
        const attributionPath = join(runDir, ATTRIBUTION_FILE);
        await late.attempt('the attribution', attributionPath, () => writeFileSync(attributionPath, attributionJson));
        if (htmlPath)
          await late.attempt('--html', opts.html!, () =>
            writeProducedReport({ kind: 'matrix', json: attributionJson }, runDir, {
              html: htmlPath,
              command: commandLine(['faultline', 'matrix', ...source.args, '--html', opts.html!]),
              cwd: io.cwd,
            }),
          );
        late.report(code);
        exit(code);
      } catch (e) {
        if (!(e instanceof RunInterrupted)) throw e;
        // cells still in flight stop their servers on the abort; each is journaled as stopped before the exit
        await executor.whenIdle(plan.launch.stopTimeoutMs + 5000);
        progress.done(`interrupted; every server of the run is stopped. Continue with: ${commandLine(['faultline', 'matrix', ...source.args, '--resume', runDir])}`);
        exit(exitCodeForSignal(interrupts.received ?? 'SIGINT'));
      } finally {
        interrupts.release();
        journal.close();
      }
    });
};
