/**
 * `faultline engine export-gguf [--model DIR] --out FILE.gguf [--type f32|bf16|q8_0]`: a faultline
 * model directory as a llama.cpp `gemma3` GGUF (src/gguf/), so `engine serve --runtime llama.cpp`
 * runs the same weights in an engine nobody here wrote. Exit 0 written, 2 bad input.
 */
import type { Command } from 'commander';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { loadModel } from '../../engine/load-model.js';
import { exportGemma3, WEIGHT_TYPES, type WeightType } from '../../gguf/gemma3-export.js';
import { serializeGguf } from '../../gguf/writer.js';
import type { CliIO } from '../io.js';
import { defaultModelDir } from './default-model.js';

interface ExportOptions {
  model?: string;
  out?: string;
  type: string;
  format: string;
}

const HELP = `
The GGUF is llama.cpp's gemma3 architecture: sliding pattern and window, both RoPE bases, QK-norm,
tied embeddings, Gemma norms with their +1 folded in, and the byte vocabulary as a GPT-2-style
vocabulary without merges (tokenization is byte-exact). The MTP head and FP8 scales are left out.
A model llama.cpp would compute differently (another attention scale, a softcap, a layer pattern
gemma3 cannot express, a non-byte vocabulary) is refused with the reason.

Examples:
  faultline engine export-gguf --out tiny-swa-f32.gguf
  faultline engine export-gguf --model models/tiny-swa --out /tmp/tiny-bf16.gguf --type bf16
  faultline engine serve --runtime llama.cpp --model tiny-swa-f32.gguf --port 8001
Exit status: 0 written, 2 bad input.
`;

export function registerEngineExportGguf(engine: Command, io: CliIO, exit: (code: number) => void): void {
  engine
    .command('export-gguf')
    .description('write a faultline model as a llama.cpp gemma3 GGUF')
    .option('--model <dir>', 'model directory (default models/tiny-swa)')
    .option('--out <file>', 'the GGUF file to write')
    .option('--type <type>', `weight type of the matrices: ${WEIGHT_TYPES.join(', ')}`, 'f32')
    .option('--format <format>', 'text or json', 'text')
    .addHelpText('after', HELP)
    .action((o: ExportOptions) => {
      runExport(o, io);
      exit(0);
    });
}

function runExport(o: ExportOptions, io: CliIO): void {
  if (!o.out)
    throw new UserError('export-gguf needs --out FILE.gguf', {
      code: 'E_USAGE',
      hint: 'e.g. faultline engine export-gguf --out tiny-swa.gguf',
    });
  if (!(WEIGHT_TYPES as readonly string[]).includes(o.type))
    throw new UserError(`--type ${o.type} is not a weight type export-gguf writes`, {
      code: 'E_USAGE',
      hint: `use one of ${WEIGHT_TYPES.join(', ')}`,
    });
  if (o.format !== 'text' && o.format !== 'json')
    throw new UserError(`--format ${o.format} is not text or json`, {
      code: 'E_USAGE',
      hint: 'use --format text or --format json',
    });
  const modelDir = o.model ? resolve(io.cwd, o.model) : defaultModelDir(io.cwd);
  if (!modelDir)
    throw new UserError('no --model given and models/tiny-swa does not exist', {
      code: 'E_USAGE',
      hint: 'pass --model DIR (a directory with config.json and safetensors)',
    });
  const started = performance.now();
  const model = loadModel(modelDir);
  const gguf = exportGemma3(model, basename(modelDir), o.type as WeightType);
  const bytes = serializeGguf(gguf.metadata, gguf.tensors);
  const out = resolve(io.cwd, o.out);
  try {
    mkdirSync(dirname(out), { recursive: true });
    // written beside and renamed: a reader never sees half a file
    const partial = `${out}.partial-${process.pid}`;
    writeFileSync(partial, bytes);
    renameSync(partial, out);
  } catch (e) {
    throw new UserError(`cannot write ${out}: ${(e as Error).message}`, {
      code: 'E_IO',
      hint: 'choose a writable --out path',
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = {
    out,
    model: modelDir,
    architecture: 'gemma3',
    type: o.type,
    bytes: bytes.length,
    tensors: gguf.tensors.length,
    notes: gguf.notes,
    seconds: Number(seconds.toFixed(3)),
  };
  if (o.format === 'json') return io.out(JSON.stringify(summary, null, 2) + '\n');
  io.out(
    `wrote ${out}: gemma3, ${o.type}, ${gguf.tensors.length} tensors, ${(bytes.length / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(2)} s\n`,
  );
  for (const n of gguf.notes) io.err(`note: ${n}\n`);
}
