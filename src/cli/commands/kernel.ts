/**
 * `faultline kernel vectors|run-engine|verify|scales`: is this attention kernel right, and where
 * exactly is it wrong? (src/kernel/, docs/kernel-dumps.md)
 * Exit status: verify 0 all within tolerance, 1 mismatches; scales 0 correct, 1 wrong; 2 usage or input error.
 */
import { Option, type Command } from 'commander';
import { copyFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { FAULT_MODELS } from '../../engine/attention/fault-models.js';
import type { BookkeepingName } from '../../engine/attention/bookkeeping.js';
import { characterize } from '../../kernel/characterize.js';
import { readKernelDump, writeKernelDump } from '../../kernel/dump-format.js';
import { listDumps } from '../../kernel/dump-files.js';
import { runEngineOnDump } from '../../kernel/engine-run.js';
import { scalesJson, verifyJson } from '../../kernel/format-json.js';
import { formatScalesText, formatVerifyText } from '../../kernel/format-text.js';
import { DEFAULT_PRESET, PRESETS, presetByName } from '../../kernel/presets.js';
import { auditScales, SCALE_PATHS, type ScalePath } from '../../kernel/scales.js';
import { parseTolerance } from '../../kernel/tolerance.js';
import { verifyDump, type CaseResult } from '../../kernel/verify.js';
import { NAN_SLOTS, writeVectors, type NanSlots } from '../../kernel/vectors.js';
import { commandLine } from '../../report/provenance.js';
import { writeProducedReport } from '../../report/write.js';
import type { CliIO } from '../io.js';
import { LateWrites, prepareOutputDir, prepareOutputFile } from '../output-paths.js';
import { createProgress } from '../progress.js';
import type { RegisterCommand } from './index.js';

function intOption(name: string, s: string, min: number): number {
  if (!/^\d+$/.test(s) || Number(s) < min) throw new UserError(`${name} must be an integer ≥ ${min}, got "${s}"`, { code: 'E_USAGE' });
  return Number(s);
}

function numberOption(name: string, s: string): number {
  const x = Number(s);
  if (s.trim() === '' || !Number.isFinite(x) || x <= 0) throw new UserError(`${name} must be a number > 0, got "${s}"`, { code: 'E_USAGE' });
  return x;
}

const faultModelHelp = Object.values(FAULT_MODELS)
  .map((m) => `  ${m.name}: ${m.summary}`)
  .join('\n');

export const registerKernel: RegisterCommand = (program: Command, io: CliIO, exit) => {
  const kernel = program
    .command('kernel')
    .description('verify attention kernels against the reference, localize errors, audit scale bookkeeping')
    .addHelpText(
      'after',
      `
Examples:
  faultline kernel vectors --out /tmp/vec                       # test vectors that cross the window at every page alignment
  faultline kernel run-engine /tmp/vec --fault-model trtllm-gen-swa-specdec   # or run a real kernel (tools/capture)
  faultline kernel verify /tmp/vec --html verify.html           # where it is wrong: (request, row, head), seq_len, alignment
  faultline kernel scales --q-dtype bf16 --kv-dtype fp8_e4m3 --q-scale 0.5 --k-scale 0.02 --v-scale 0.03 \\
      --path trtllm-decode --policy vllm-affected               # bmm1/bmm2 scale bookkeeping
`,
    );

  kernel
    .command('vectors')
    .description('write input dumps (test vectors) and manifest.json')
    .requiredOption('--out <dir>', 'directory to write (created if needed)')
    .addOption(new Option('--preset <name>', 'which cases').choices(Object.keys(PRESETS)).default(DEFAULT_PRESET))
    .option('--seed <n>', 'random seed', '1')
    .option('--unit-scales', 'q/k/v scales 1.0 (hides scale-bookkeeping defects; a control only)', false)
    .addOption(new Option('--nan-outside-window [slots]', 'NaN in the KV slots no row may read (each request then gets pages of its own): all, before-window (keys older than its window) or past-end (slots past its seq_len, unused pages). A kernel that loads a masked slot returns NaN').choices([...NAN_SLOTS]).preset('all'))
    .addHelpText('after', `\nPresets:\n${Object.values(PRESETS).map((p) => `  ${p.name}: ${p.description}`).join('\n')}\n`)
    .action((o: { out: string; preset: string; seed: string; unitScales: boolean; nanOutsideWindow?: NanSlots }) => {
      const dir = prepareOutputDir('--out', io.cwd, o.out);
      const poison = o.nanOutsideWindow !== undefined;
      const m = writeVectors(dir, presetByName(o.preset), { seed: intOption('--seed', o.seed, 0), unitScales: o.unitScales, nanOutsideWindow: poison, nanSlots: o.nanOutsideWindow });
      io.out(`wrote ${m.cases.length} dumps (preset ${m.preset}, seed ${m.seed}${m.unitScales ? ', unit scales' : ', calibrated scales'}${poison ? `, NaN in the ${m.nanSlots} slots no row reads` : ''}) and manifest.json to ${dir}\n`);
      io.out('next: run a kernel on them (tools/capture on a GPU, or `faultline kernel run-engine`), then `faultline kernel verify`\n');
      exit(0);
    });

  kernel
    .command('run-engine')
    .description("write the engine's emulated FlashInfer decode output into dumps (optionally with a fault MODEL)")
    .argument('<path>', 'a dump or a directory of dumps')
    .addOption(new Option('--fault-model <name>', 'fault model to apply, or none').choices([...Object.keys(FAULT_MODELS), 'none']).default('trtllm-gen-swa-specdec'))
    .addOption(new Option('--policy <policy>', 'scale bookkeeping').choices(['fixed', 'vllm-affected']).default('fixed'))
    .option('--out <dir>', 'write copies here instead of updating the dumps in place')
    .addHelpText('after', `\nFault models (MODELS of unpublished kernel defects, not the defects):\n${faultModelHelp}\n`)
    .action((path: string, o: { faultModel: string; policy: BookkeepingName; out?: string }) => {
      const files = listDumps(resolve(io.cwd, path));
      const faultModel = o.faultModel === 'none' ? null : FAULT_MODELS[o.faultModel];
      const outDir = o.out ? prepareOutputDir('--out', io.cwd, o.out) : undefined;
      if (faultModel) io.out(`${faultModel.summary}\n`);
      let pairs = 0;
      for (const f of files) {
        const { dump, record } = runEngineOnDump(readKernelDump(f), { policy: o.policy, faultModel });
        const target = outDir ? join(outDir, basename(f)) : f;
        writeKernelDump(target, dump);
        pairs += record.faultyPairs.length;
        io.out(`${basename(f)}: ${record.kernel}, Q ${record.qDtype}, bmm1 ${record.bmm1}, bmm2 ${record.bmm2}, ${record.faultyPairs.length} (row, head) pair(s) changed by the fault model\n`);
      }
      const manifest = join(dirname(files[0]), 'manifest.json');
      if (outDir && existsSync(manifest) && resolve(manifest) !== join(outDir, 'manifest.json')) copyFileSync(manifest, join(outDir, 'manifest.json'));
      io.out(`wrote ${files.length} dump(s)${outDir ? ` to ${outDir}` : ' in place'}; ${pairs} pair(s) changed by the fault model in all\n`);
      exit(0);
    });

  kernel
    .command('verify')
    .description('recompute dumps with the reference attention; localize and characterize errors')
    .argument('<path>', 'a dump or a directory of dumps')
    .option('--tolerance <tol>', 'auto (FlashInfer test bands from the dtypes) or ABS,REL', 'auto')
    .option('--json', 'one JSON object on stdout', false)
    .option('--max-pairs <n>', 'localized pairs to list in text output', '40')
    .option('--html <file>', 'also write an HTML report (error maps, controls) to this file')
    .option('--quiet', 'plain progress lines, no live line')
    .addHelpText('after', '\nExit status: 0 all dumps within tolerance, 1 mismatches, 2 usage or input error.\n')
    .action(async (path: string, o: { tolerance: string; json: boolean; maxPairs: string; html?: string; quiet?: boolean }) => {
      const tol = parseTolerance(o.tolerance);
      const maxPairs = intOption('--max-pairs', o.maxPairs, 0);
      const htmlPath = o.html !== undefined ? prepareOutputFile('--html', io.cwd, o.html) : undefined;
      const results: CaseResult[] = [];
      const files = listDumps(resolve(io.cwd, path));
      const progress = createProgress(io, { label: 'kernel verify', quiet: o.quiet });
      for (const [i, f] of files.entries()) {
        progress.update(`${i}/${files.length} dumps, ${basename(f)}`);
        const d = readKernelDump(f);
        if (!d.output)
          throw new UserError(`${f}: the dump has no "output" tensor`, {
            code: 'E_KERNEL_DUMP',
            hint: 'input vectors carry no output: run a kernel on them first (tools/capture on a GPU, or `faultline kernel run-engine`)',
          });
        results.push(verifyDump(d, tol));
      }
      progress.done();
      const ch = characterize(results);
      const json = verifyJson(results, ch, o.tolerance);
      io.out(o.json ? json : formatVerifyText(results, ch, { maxPairs }));
      const code = results.every((r) => r.ok) ? 0 : 1;
      if (htmlPath) {
        const argv = ['faultline', 'kernel', 'verify', path, '--tolerance', o.tolerance, ...(o.json ? ['--json'] : []), '--html', o.html!];
        const late = new LateWrites(io);
        await late.attempt('--html', o.html!, () => writeProducedReport({ kind: 'kernel', json }, path, { html: htmlPath, command: commandLine(argv), cwd: io.cwd }));
        late.report(code);
      }
      exit(code);
    });

  kernel
    .command('scales')
    .description('audit bmm1/bmm2: expected versus what a scale policy passes, and the effect')
    .addOption(new Option('--q-dtype <dtype>', 'query dtype').choices(['bf16', 'fp8']).makeOptionMandatory())
    .addOption(new Option('--kv-dtype <dtype>', 'KV cache dtype').choices(['bf16', 'fp8_e4m3']).makeOptionMandatory())
    .requiredOption('--q-scale <x>', 'q_scale (checkpoint)')
    .requiredOption('--k-scale <y>', 'k_scale')
    .requiredOption('--v-scale <z>', 'v_scale')
    .option('--sm-scale <s>', "the model's softmax scale", '1')
    .addOption(new Option('--path <path>', 'serving path').choices(SCALE_PATHS).makeOptionMandatory())
    .addOption(new Option('--policy <policy>', 'scale bookkeeping').choices(['fixed', 'vllm-affected']).default('vllm-affected'))
    .option('--json', 'one JSON object on stdout', false)
    .addHelpText('after', '\nExit status: 0 the kernel gets correct scales, 1 wrong, 2 usage error.\n')
    .action((o: { qDtype: 'bf16' | 'fp8'; kvDtype: 'bf16' | 'fp8_e4m3'; qScale: string; kScale: string; vScale: string; smScale: string; path: ScalePath; policy: BookkeepingName; json: boolean }) => {
      const r = auditScales({
        qDtype: o.qDtype,
        kvDtype: o.kvDtype,
        qScale: numberOption('--q-scale', o.qScale),
        kScale: numberOption('--k-scale', o.kScale),
        vScale: numberOption('--v-scale', o.vScale),
        smScale: numberOption('--sm-scale', o.smScale),
        path: o.path,
        policy: o.policy,
      });
      io.out(o.json ? scalesJson(r) : formatScalesText(r));
      exit(r.correct ? 0 : 1);
    });
};

