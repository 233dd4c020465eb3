/**
 * `faultline matrix PLAN.yaml [--out RUN_DIR] [--resume RUN_DIR] [--dry-run] [--parallel N]
 * [--format text|json] [--quiet]`: launch the plan's server configurations (reference, the
 * most-enabled ones, a t-way covering array, then adaptive localization), probe each against
 * the reference, and report the minimal failing interactions with their verified remedies.
 *
 * stdout carries only the report (text or JSON); progress goes to stderr. Ctrl-C stops every
 * server of the run and leaves a journal that `--resume RUN_DIR` continues.
 * Exit: 0 clean, 1 corruption found, 2 usage or plan error, 3 inconclusive, 130 interrupted.
 */
import type { Command } from 'commander';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';
import { buildAttribution } from '../../matrix/attribution.js';
import { RunInterrupted } from '../../matrix/cells.js';
import { maxPassRounds } from '../../matrix/confirmation.js';
import { formatAttributionJson, formatAttributionText } from '../../matrix/format-text.js';
import { handleInterrupts } from '../../matrix/interrupt.js';
import { Journal, type JournalRecord } from '../../matrix/journal.js';
import { createLocalExecutor } from '../../matrix/local-executor.js';
import { loadPlanFile } from '../../matrix/plan-load.js';
import type { MatrixPlan } from '../../matrix/plan-compile.js';
import { createEngineProbe, parseProbeOptions } from '../../matrix/probe-cell.js';
import { runMatrix, type RunEvent } from '../../matrix/run.js';
import { writeFileSync } from 'node:fs';
import { ATTRIBUTION_FILE } from '../../report/inputs/matrix-run.js';
import { commandLine } from '../../report/provenance.js';
import { writeProducedReport } from '../../report/write.js';
import type { CliIO } from '../io.js';
import { createProgress } from '../progress.js';
import { describeDryRun, dryRunJson } from './matrix-dry-run.js';
import type { RegisterCommand } from './index.js';

interface MatrixOptions {
  out?: string;
  resume?: string;
  dryRun?: boolean;
  parallel?: string;
  format: string;
  quiet?: boolean;
  html?: string;
}

export const EXIT = { clean: 0, corrupt: 1, usage: 2, inconclusive: 3, interrupted: 130 } as const;

function parallelOf(value: string | undefined, plan: MatrixPlan): number {
  if (value === undefined) return plan.executor.parallel;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 64)
    throw new UserError(`--parallel ${JSON.stringify(value)} must be an integer from 1 to 64`, { hint: 'servers run at once, e.g. --parallel 2' });
  if (plan.executor.gpus && plan.executor.gpus.length !== n)
    throw new UserError(`--parallel ${n} does not match the plan's executor.gpus (${plan.executor.gpus.length} slots)`, {
      hint: 'give one CUDA_VISIBLE_DEVICES value per slot in executor.gpus, or leave --parallel out',
    });
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

function describeCell(event: Extract<RunEvent, { type: 'cell' }>, plan: MatrixPlan): string {
  const c = event.cell;
  const changed = Object.entries(c.levels)
    .filter(([name, level]) => plan.space.levels[plan.space.names.indexOf(name)][plan.baseline[plan.space.names.indexOf(name)]] !== level)
    .map(([name, level]) => `${name}=${level}`);
  const rate = c.outcome === 'corrupt' && c.corruptRate !== undefined ? ` (${(c.corruptRate * 100).toFixed(0)}% of requests)` : '';
  const took = event.reused ? 'from the journal' : `${(c.durationMs / 1000).toFixed(1)} s`;
  return `${c.id} ${c.phase}: ${c.outcome.toUpperCase()}${rate} [${changed.join(' ') || 'reference levels'}] ${took}`;
}

export const registerMatrix: RegisterCommand = (program: Command, io: CliIO, exit) => {
  program
    .command('matrix')
    .description('find the minimal feature combination that corrupts output, in few server launches (covering array + localization)')
    .argument('<plan>', 'the matrix plan (YAML; schema/matrix-plan.schema.json)')
    .option('--out <dir>', 'run directory for the journal and per-cell logs (default: ./faultline-matrix-<time>)')
    .option('--resume <dir>', 'continue an interrupted run: finished cells are not run again')
    .option('--dry-run', 'print the plan and the covering array without launching anything')
    .option('--parallel <n>', "servers at once (default: the plan's executor.parallel)")
    .option('--format <format>', 'text or json', 'text')
    .option('--quiet', 'plain progress lines, no live line')
    .option('--html <file>', 'also write a self-contained HTML report (attribution heatmap, localization steps)')
    .addHelpText(
      'after',
      '\nProgress goes to stderr; stdout holds only the report.\n' +
        'Exit status: 0 clean, 1 corruption found, 2 usage or plan error, 3 inconclusive, 130 interrupted (resume with --resume).\n',
    )
    .action(async (planPath: string, opts: MatrixOptions) => {
      if (opts.format !== 'text' && opts.format !== 'json') throw new UserError(`--format ${opts.format}: use text or json`);
      if (opts.out && opts.resume)
        throw new UserError('--out and --resume are alternatives', { hint: '--resume RUN_DIR continues in RUN_DIR itself' });
      const planFile = resolve(io.cwd, planPath);
      const plan = loadPlanFile(planFile);
      const slots = parallelOf(opts.parallel, plan);
      parseProbeOptions(plan.probe, planPath, plan.probeAt); // a typo in probe: fails here, before any server starts

      if (opts.dryRun) {
        if (opts.resume) throw new UserError('--dry-run launches nothing; it cannot resume a run');
        io.out(opts.format === 'json' ? dryRunJson(plan, slots) : describeDryRun(plan, slots, planPath));
        exit(EXIT.clean);
        return;
      }

      let journal: Journal;
      let resumed: JournalRecord[] = [];
      let runDir: string;
      if (opts.resume) {
        runDir = resolve(io.cwd, opts.resume);
        const r = Journal.resume(runDir);
        checkResumable(r.records, plan, runDir);
        journal = r.journal;
        resumed = r.records;
      } else {
        runDir = opts.out ? resolve(io.cwd, opts.out) : defaultRunDir(io.cwd);
        journal = Journal.create(runDir, {
          type: 'run',
          version: 1,
          planFile: planPath,
          planHash: plan.hash,
          faultline: VERSION,
          startedAt: new Date().toISOString(),
        });
      }

      const planDir = dirname(planFile);
      const executor = createLocalExecutor({
        runDir,
        slots,
        gpus: plan.executor.gpus,
        // launch.cwd is relative to the plan file (as paths in compose files are); default: where faultline runs
        cwd: plan.launch.cwd !== undefined ? resolve(planDir, plan.launch.cwd) : io.cwd,
        health: plan.launch.health,
        readyTimeoutMs: plan.launch.readyTimeoutMs,
        stopTimeoutMs: plan.launch.stopTimeoutMs,
        baseEnv: io.env,
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

      const controller = new AbortController();
      const release = handleInterrupts(controller);
      try {
        const run = await runMatrix({
          plan,
          executor,
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
        // Kept in the run directory so `faultline report RUN_DIR` needs neither a replay nor the plan.
        writeFileSync(join(runDir, ATTRIBUTION_FILE), attributionJson);
        io.out(opts.format === 'json' ? attributionJson : formatAttributionText(report));
        if (opts.html)
          await writeProducedReport({ kind: 'matrix', json: attributionJson }, runDir, {
            html: resolve(io.cwd, opts.html),
            command: commandLine(['faultline', 'matrix', planPath, '--html', opts.html]),
            cwd: io.cwd,
          });
        exit(report.verdict === 'corruption-found' ? EXIT.corrupt : report.verdict === 'clean' ? EXIT.clean : EXIT.inconclusive);
      } catch (e) {
        if (!(e instanceof RunInterrupted)) throw e;
        progress.done(`interrupted; every server of the run is stopped. Continue with: faultline matrix ${planPath} --resume ${runDir}`);
        exit(EXIT.interrupted);
      } finally {
        release();
        journal.close();
      }
    });
};
