/**
 * `faultline probe --target URL (--reference URL | --golden FILE) …`: is this running server
 * corrupting output? Exit 0 CLEAN, 1 CORRUPT, 2 usage or tool error, 3 INCONCLUSIVE.
 * `--save-golden FILE` alone (no reference) records the target as a golden for later probes.
 */
import type { Command } from 'commander';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../core/errors.js';
import { readModelFacts } from '../../deployment/model-config.js';
import { DEFAULT_SEQUENTIAL } from '../../oracle/stats.js';
import { formatText, summaryJson } from '../../probe/format.js';
import { recordGolden } from '../../probe/record.js';
import { reconcileGoldenOptions, type GoldenSettings } from '../../probe/golden-options.js';
import { loadRecording, saveRecording, type Recording } from '../../probe/recording.js';
import { runProbe, type ProbeConfig, type ProbeReport } from '../../probe/run.js';
import { ALL_SUITES, parseSuiteList, WORKLOAD_SUITE, type AnySuite } from '../../probe/suite-list.js';
import { parsePromptFile, type SuiteName } from '../../probe/suites.js';
import { commandLine } from '../../report/provenance.js';
import { writeProducedReport } from '../../report/write.js';
import type { CliIO } from '../io.js';
import { LateWrites, prepareOutputFile } from '../output-paths.js';
import type { RegisterCommand } from './index.js';
import { runWorkloadCommand, workloadConfig, workloadRequested, WORKLOAD_HELP, type WorkloadFlags, type WorkloadRun } from './probe-workload.js';
import { probeSuites } from './probe-suites.js';
import { addCanaryOptions, CANARY_HELP, canaryRequested, runCanaryCommand, type CanaryFlags } from './probe-canary.js';

interface ProbeOptions extends CanaryFlags, WorkloadFlags {
  target: string;
  html?: string;
  reference?: string;
  golden?: string;
  scorer?: string;
  saveGolden?: string;
  suite: string;
  prompts?: string;
  promptText?: string;
  window?: string;
  modelConfig?: string;
  pageSize: string;
  requests: string;
  maxTokens: string;
  concurrency: string;
  seed: string;
  logprobs: string;
  timeout: string;
  format: string;
  out?: string;
  apiKeyEnv?: string;
  earlyStop: boolean;
  maxFailedRequests?: string;
}

const DEFAULT_PROMPT_TEXT = fileURLToPath(new URL('../../../data/heldout-prose.txt', import.meta.url));

export const EXIT = { clean: 0, corrupt: 1, usage: 2, inconclusive: 3 } as const;

function int(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new UserError(
      `${name} ${JSON.stringify(value)} must be an integer${max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : ` ≥ ${min}`}`,
    );
  return n;
}

function url(name: string, value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    return value;
  } catch {
    throw new UserError(`${name} ${JSON.stringify(value)} is not an http(s) URL`, {
      hint: 'e.g. --target http://127.0.0.1:8000',
    });
  }
}

function readText(path: string, what: string, hint: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(
      `cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { hint },
    );
  }
}

function windowOf(opts: ProbeOptions, cwd: string): number | undefined {
  if (opts.window !== undefined && opts.modelConfig !== undefined)
    throw new UserError('--window and --model-config are alternatives; pass one');
  if (opts.window !== undefined) return int('--window', opts.window, 1);
  if (opts.modelConfig === undefined) return undefined;
  const facts = readModelFacts(resolve(cwd, opts.modelConfig));
  if (facts.window === undefined)
    throw new UserError(`${facts.source} declares no sliding window`, {
      hint: 'window-crossing and short suites need one; use --suite file for a full-attention model, or pass --window N',
    });
  return facts.window;
}

export const registerProbe: RegisterCommand = (program: Command, io: CliIO, exit) => {
  const command = program
    .command('probe')
    .description(
      'probe a running OpenAI-compatible server for silent output corruption (differential, temperature 0)',
    )
    .requiredOption('--target <url>', 'the server under test')
    .option('--reference <url>', 'a server of the same model you trust (without the suspect features)')
    .option('--golden <file>', 'a saved reference run (from --save-golden) instead of a reference server')
    .option(
      '--scorer <url>',
      'with --golden: a live server of the reference configuration that scores the target\'s continuations after a divergence',
    )
    .option(
      '--save-golden <file>',
      'save the reference run (or, with no reference, the target run) as a golden',
    )
    .option('--suite <name>', `${ALL_SUITES.join(', ')}, or the workload suite and one other: workload,window-crossing (CORRUPT if either is, CLEAN only if both are)`, 'window-crossing')
    .option('--rounds <n>', 'workload suite: rounds of the trace at most (the sequential test may stop earlier)', '4')
    .option('--save-trace <file>', 'workload suite: write the trace it ran, for --replay')
    .option('--replay <file>', 'run a saved workload trace again (implies --suite workload)')
    .option(
      '--prompts <file>',
      'JSONL prompts for --suite file: {"prompt": "text" | [ids], "max_tokens"?: n}',
    )
    .option(
      '--prompt-text <file>',
      'held-out text the suites cut prompts from (default: data/heldout-prose.txt)',
    )
    .option('--window <n>', "the model's sliding window in tokens")
    .option('--model-config <path>', "the model's config.json or directory (reads the window)")
    .option('--page-size <n>', 'KV-cache page (block) size of the target, for alignment', '16')
    .option('--requests <n>', 'prompts to send at most (the sequential test may stop earlier)', '32')
    .option(
      '--max-tokens <n>',
      'tokens to generate per prompt (window-crossing lengthens short prompts)',
      '64',
    )
    .option('--concurrency <n>', 'requests in flight per server', '4')
    .option('--seed <n>', 'seed for the suite and the request seed field', '0')
    .option('--logprobs <k>', 'top-k logprobs to ask for (vLLM allows up to 20 by default)', '5')
    .option('--timeout <seconds>', 'per-request wait for the response headers', '300')
    .option('--no-early-stop', 'run every planned request even after the verdict is decided')
    .option(
      '--max-failed-requests <n>',
      `CLEAN needs at most N failed requests (0: any failure makes the run INCONCLUSIVE, exit 3); default: at most ${100 * DEFAULT_SEQUENTIAL.maxFailedFraction}% of requests`,
    )
    .option('--format <format>', 'text or json', 'text')
    .option('--out <file>', 'write the full JSON report, token-level exchanges included')
    .option('--html <file>', 'also write a self-contained HTML report (charts, side-by-side examples) to this file')
    .option(
      '--api-key-env <name>',
      'environment variable holding the API key (sent to both servers, never printed)',
    )
    .addHelpText(
      'after',
      `
Examples:
  faultline probe --target http://127.0.0.1:8000 --reference http://127.0.0.1:8001 --model-config /models/gemma-3
  faultline probe --target http://127.0.0.1:8001 --window 1024 --save-golden golden.json   # record a trusted server
  faultline probe --target http://127.0.0.1:8000 --golden golden.json --format json --out probe.json
  faultline probe --target URL --reference URL --window 128 --max-failed-requests 0       # any failed request fails CI

With --golden the prompts are the golden's: --suite, --seed, --max-tokens, --logprobs, --prompts and
--prompt-text are refused when they would change them; --page-size and --window override the golden's
values (a note says so); --requests replays the first N exchanges.

Exit status: 0 clean, 1 corrupt, 2 usage or tool error, 3 inconclusive (e.g. too many failed requests).`,
    )
    .action(async (opts: ProbeOptions, cmd: Command) => {
      if (opts.format !== 'text' && opts.format !== 'json')
        throw new UserError(`--format ${opts.format}: use text or json`);
      // --replay alone implies the workload suite; --suite names one suite or several
      const suites: AnySuite[] = opts.replay !== undefined && cmd.getOptionValueSource('suite') !== 'cli' ? [WORKLOAD_SUITE] : parseSuiteList(opts.suite, '--suite');
      const withWorkload = suites.includes(WORKLOAD_SUITE) || workloadRequested(opts);
      const promptSuite = suites.find((s): s is SuiteName => s !== WORKLOAD_SUITE);
      if (withWorkload && promptSuite === undefined) {
        if (canaryRequested(opts)) throw new UserError('--every and the metrics options run the window probe; the workload suite runs once', { hint: 'drop --every / --metrics-port / --prometheus-textfile, or probe with --suite window-crossing' });
        if (opts.html) throw new UserError('--html draws window-crossing probes; the workload suite has no HTML section', { hint: 'write its full JSON report with --out FILE' });
        exit(await probeWorkload(opts, io));
        return;
      }
      if (withWorkload) refuseWithWorkload(opts);
      if (opts.replay !== undefined && !suites.includes(WORKLOAD_SUITE))
        throw new UserError(`--replay runs a saved workload trace, and --suite ${opts.suite} does not name the workload suite`, { hint: `--suite workload,${opts.suite}, or leave --suite out` });
      const suite = (opts.prompts !== undefined && promptSuite === 'window-crossing' ? 'file' : promptSuite) as SuiteName;
      if (opts.golden && opts.saveGolden)
        throw new UserError('--golden and --save-golden together would copy the golden; pass one');
      if (opts.reference && opts.golden)
        throw new UserError('--reference and --golden are alternatives; pass one');
      if (opts.scorer && !opts.golden)
        throw new UserError('--scorer goes with --golden', {
          hint: 'with --reference the reference server scores the target itself',
        });
      if (!opts.reference && !opts.golden && !opts.saveGolden)
        throw new UserError('probe needs something to compare against', {
          hint: 'pass --reference URL or --golden FILE (or --save-golden FILE to record the target)',
        });
      let apiKey: string | undefined;
      if (opts.apiKeyEnv !== undefined) {
        apiKey = io.env[opts.apiKeyEnv];
        if (!apiKey)
          throw new UserError(`--api-key-env ${opts.apiKeyEnv}: that environment variable is not set`, {
            hint: `export ${opts.apiKeyEnv}=… before running the probe`,
          });
      }
      const requests = int('--requests', opts.requests, 1, 100_000);
      const outputs = prepareOutputs(opts, io.cwd);
      const maxTokens = int('--max-tokens', opts.maxTokens, 1, 1_000_000);
      const window = windowOf(opts, io.cwd);
      const pageSize = int('--page-size', opts.pageSize, 1, 4096);
      const goldenRun = opts.golden ? loadGolden(opts.golden, opts, cmd, io.cwd, { window, pageSize, requests, maxTokens }) : undefined;
      const golden = goldenRun?.golden;
      for (const note of goldenRun?.settings.notes ?? []) io.err(`faultline probe: --golden: ${note}\n`);
      const filePrompts =
        suite === 'file' && !golden
          ? (() => {
              if (!opts.prompts) throw new UserError('--suite file needs --prompts FILE.jsonl');
              const path = resolve(io.cwd, opts.prompts);
              return parsePromptFile(
                readText(path, 'prompt file', 'one JSON object per line: {"prompt": "…"}'),
                opts.prompts,
                maxTokens,
              );
            })()
          : undefined;
      const needsText = !golden && suite !== 'file';
      const corpus = needsText
        ? readText(
            opts.promptText ? resolve(io.cwd, opts.promptText) : DEFAULT_PROMPT_TEXT,
            'prompt text',
            'pass --prompt-text FILE with plain prose to cut prompts from',
          )
        : '';
      const config: ProbeConfig = {
        target: { url: url('--target', opts.target), apiKey },
        reference: opts.reference ? { url: url('--reference', opts.reference), apiKey } : undefined,
        golden,
        scorer: opts.scorer ? { url: url('--scorer', opts.scorer), apiKey } : undefined,
        suite,
        filePrompts,
        corpus,
        window: goldenRun ? goldenRun.settings.window : window,
        pageSize: goldenRun ? goldenRun.settings.pageSize : pageSize,
        requests: goldenRun ? goldenRun.settings.requests : requests,
        notes: goldenRun?.settings.notes,
        maxTokens,
        concurrency: int('--concurrency', opts.concurrency, 1, 256),
        seed: int('--seed', opts.seed, 0, 2 ** 31 - 1),
        logprobs: int('--logprobs', opts.logprobs, 1, 20),
        earlyStop: opts.earlyStop,
        sequential:
          opts.maxFailedRequests !== undefined
            ? { ...DEFAULT_SEQUENTIAL, maxFailedRequests: int('--max-failed-requests', opts.maxFailedRequests, 0) }
            : undefined,
        client: { timeouts: { headersMs: 1000 * int('--timeout', opts.timeout, 1) } },
        onProgress: io.isTTY
          ? (done, total) => io.err(`\rprobe: ${done}/${total} requests judged`)
          : undefined,
      };
      if (withWorkload) {
        exit(await probeSuites(suites, config, workloadRun(opts, io), opts.format as 'text' | 'json', io));
        return;
      }
      if (canaryRequested(opts)) {
        exit(await runCanaryCommand(config, opts, io, EXIT));
        return;
      }

      if (!config.reference && !golden) {
        const rec = await recordGolden(config);
        const ok = rec.recording.exchanges.length - rec.failed;
        try {
          saveRecording(outputs.saveGolden!, rec.recording);
        } catch (e) {
          // Recording mode produces nothing but the file: losing it is a failure, not a verdict.
          throw new UserError(
            `recorded ${ok} exchanges from ${config.target.url} but could not write ${outputs.saveGolden}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
            { code: 'E_OUTPUT_PATH', hint: 'pass --save-golden a path you can write' },
          );
        }
        io.out(
          opts.format === 'json'
            ? JSON.stringify(
                { recorded: ok, failed: rec.failed, errors: rec.errors, golden: opts.saveGolden },
                null,
                2,
              ) + '\n'
            : `faultline probe: recorded ${ok} exchanges from ${config.target.url} into ${opts.saveGolden}${rec.failed ? `; ${rec.failed} failed:\n${rec.errors.map((e) => `  ${e}`).join('\n')}` : ''}\n`,
        );
        exit(rec.failed > 0 ? EXIT.inconclusive : EXIT.clean);
        return;
      }

      const report = await runProbe(config);
      if (io.isTTY) io.err('\r\x1b[K');
      io.out(
        opts.format === 'json'
          ? JSON.stringify(summaryJson(report), null, 2) + '\n'
          : formatText(report, { color: io.isTTY && !io.env.NO_COLOR }),
      );
      const code = report.verdict === 'CLEAN' ? EXIT.clean : report.verdict === 'CORRUPT' ? EXIT.corrupt : EXIT.inconclusive;
      await writeProbeOutputs(report, opts, outputs, io, code);
      exit(code);
    });
  addCanaryOptions(command).addHelpText('after', CANARY_HELP).addHelpText('after', WORKLOAD_HELP);
};

/** What the workload suite refuses beside a prompt suite: it compares with a live reference, once. */
function refuseWithWorkload(opts: ProbeOptions): void {
  if (canaryRequested(opts)) throw new UserError('--every and the metrics options cannot run the workload suite', { hint: 'probe with one prompt suite to keep probing' });
  if (opts.html) throw new UserError('--html draws window-crossing probes alone; with the workload suite, write the full JSON report with --out FILE');
}

async function probeWorkload(opts: ProbeOptions & WorkloadFlags, io: CliIO): Promise<number> {
  const run = workloadRun(opts, io);
  const report = await runWorkloadCommand(run.config, { ...opts, saveTrace: run.traceOut }, opts.format as 'text' | 'json', io);
  if (run.out) writeFileSync(run.out, JSON.stringify(report, null, 2) + '\n');
  return report.verdict === 'CLEAN' ? EXIT.clean : report.verdict === 'CORRUPT' ? EXIT.corrupt : EXIT.inconclusive;
}

/** The workload suite's configuration from the flags, and its output paths (checked before any request). */
function workloadRun(opts: ProbeOptions & WorkloadFlags, io: CliIO): WorkloadRun {
  if (!opts.reference)
    throw new UserError('the workload suite needs --reference URL', {
      hint: 'each request of the trace is run alone on a server you trust, and compared',
    });
  let apiKey: string | undefined;
  if (opts.apiKeyEnv !== undefined) {
    apiKey = io.env[opts.apiKeyEnv];
    if (!apiKey) throw new UserError(`--api-key-env ${opts.apiKeyEnv}: that environment variable is not set`);
  }
  const out = opts.out ? prepareOutputFile('--out', io.cwd, opts.out) : undefined;
  const traceOut = opts.saveTrace ? prepareOutputFile('--save-trace', io.cwd, opts.saveTrace) : undefined;
  const config = workloadConfig(
    {
      target: { url: url('--target', opts.target), apiKey },
      reference: { url: url('--reference', opts.reference), apiKey },
      corpus: readText(opts.promptText ? resolve(io.cwd, opts.promptText) : DEFAULT_PROMPT_TEXT, 'prompt text', 'pass --prompt-text FILE with plain prose to cut prompts from'),
      maxTokens: int('--max-tokens', opts.maxTokens, 1, 1_000_000),
      seed: int('--seed', opts.seed, 0, 2 ** 31 - 1),
      logprobs: int('--logprobs', opts.logprobs, 1, 20),
      window: windowOf(opts, io.cwd),
      pageSize: int('--page-size', opts.pageSize, 1, 4096),
      earlyStop: opts.earlyStop,
      client: { timeouts: { headersMs: 1000 * int('--timeout', opts.timeout, 1) } },
    },
    opts,
    io.cwd,
    int,
  );
  return { config, ...(out ? { out } : {}), ...(traceOut ? { traceOut } : {}) };
}

/** The golden and what it does to the other options (conflicts refused, overrides noted). */
function loadGolden(
  path: string,
  opts: ProbeOptions,
  cmd: Command,
  cwd: string,
  parsed: { window?: number; pageSize: number; requests: number; maxTokens: number },
): { golden: { path: string; recording: Recording }; settings: GoldenSettings } {
  const recording = loadRecording(resolve(cwd, path));
  const given = (name: string) => cmd.getOptionValueSource(name) === 'cli';
  const settings = reconcileGoldenOptions(recording, path, {
    suite: given('suite') ? opts.suite : undefined,
    seed: given('seed') ? int('--seed', opts.seed, 0, 2 ** 31 - 1) : undefined,
    maxTokens: given('maxTokens') ? parsed.maxTokens : undefined,
    logprobs: given('logprobs') ? int('--logprobs', opts.logprobs, 1, 20) : undefined,
    prompts: opts.prompts,
    promptText: opts.promptText,
    pageSize: given('pageSize') ? parsed.pageSize : undefined,
    window: parsed.window,
    requests: given('requests') ? parsed.requests : undefined,
  });
  return { golden: { path, recording: { ...recording, exchanges: recording.exchanges.slice(0, settings.requests) } }, settings };
}

interface ProbeOutputs {
  out?: string;
  saveGolden?: string;
  html?: string;
}

/** Every output path, checked (parent directories made) before any request is sent. */
function prepareOutputs(opts: ProbeOptions, cwd: string): ProbeOutputs {
  return {
    out: opts.out !== undefined ? prepareOutputFile('--out', cwd, opts.out) : undefined,
    saveGolden: opts.saveGolden !== undefined ? prepareOutputFile('--save-golden', cwd, opts.saveGolden) : undefined,
    html: opts.html !== undefined ? prepareOutputFile('--html', cwd, opts.html) : undefined,
  };
}

/** After the verdict is printed: the files; a failed write is reported and the verdict's code kept. */
async function writeProbeOutputs(report: ProbeReport, opts: ProbeOptions, outputs: ProbeOutputs, io: CliIO, code: number): Promise<void> {
  const late = new LateWrites(io);
  const { golden, ...full } = report;
  if (outputs.saveGolden && golden) await late.attempt('--save-golden', opts.saveGolden!, () => saveRecording(outputs.saveGolden!, golden));
  if (outputs.out) await late.attempt('--out', opts.out!, () => writeFileSync(outputs.out!, JSON.stringify(full) + '\n'));
  if (outputs.html) {
    const argv = ['faultline', 'probe', '--target', opts.target, '--suite', opts.suite, '--html', opts.html!];
    await late.attempt('--html', opts.html!, () =>
      writeProducedReport({ kind: 'probe', json: JSON.stringify(full) }, opts.target, {
        html: outputs.html!,
        command: commandLine(argv),
        cwd: io.cwd,
      }),
    );
  }
  late.report(code);
}
