#!/usr/bin/env node
// Serves the repository's tiny-swa model on llama.cpp for a matrix cell: exports the GGUF files
// the launch names into the cell's own directory first (a fresh clone has none, and two cells that
// start together must not write one file), then runs `faultline engine serve --runtime llama.cpp`
// with the rest of the arguments.
//
//   node serve-tiny-swa.mjs DIR [serve options…]   where any argument @tiny-swa.TYPE.gguf
//   (TYPE: f32, bf16 or q8_0, the weight type) becomes DIR/tiny-swa.TYPE.gguf, exported on first use.
//
// With `--llama-server PATH` the same options go to llama.cpp's own llama-server binary at PATH
// (scripts/llama-server/build.sh builds it) instead. Without --ctx-size, llama-server is given the
// model's context per sequence (2048 × --parallel), as the runtime sizes it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../bin/faultline.js', import.meta.url));
const model = fileURLToPath(new URL('../../models/tiny-swa', import.meta.url));
const [dir, ...rest] = process.argv.slice(2);
if (!dir) {
  console.error(
    'usage: serve-tiny-swa.mjs DIR [engine serve options]  (DIR: where the exported GGUF files go)',
  );
  process.exit(2);
}
mkdirSync(dir, { recursive: true });

const args = rest.map((arg) => {
  const named = /^@tiny-swa\.(f32|bf16|q8_0)\.gguf$/.exec(arg);
  if (!named) return arg;
  const file = join(dir, `tiny-swa.${named[1]}.gguf`);
  if (!existsSync(file)) {
    const r = spawnSync(
      process.execPath,
      [cli, 'engine', 'export-gguf', '--model', model, '--type', named[1], '--out', file],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  return file;
});

const binaryAt = args.indexOf('--llama-server');
const binary = binaryAt >= 0 ? args.splice(binaryAt, 2)[1] : undefined;
if (binaryAt >= 0 && (!binary || !existsSync(binary))) {
  console.error(
    `serve-tiny-swa: no llama-server at ${binary ?? '(no path given)'}; build it with sh scripts/llama-server/build.sh`,
  );
  process.exit(2);
}
if (binary && !args.some((a) => a === '--ctx-size' || a === '-c')) {
  const at = args.findIndex((a) => a === '--parallel' || a === '-np');
  const parallel = at >= 0 ? Number(args[at + 1]) : 4;
  args.push('--ctx-size', String(2048 * parallel));
}
const server = binary
  ? spawn(binary, args, { stdio: 'inherit' })
  : spawn(process.execPath, [cli, 'engine', 'serve', '--runtime', 'llama.cpp', ...args], { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => {
  // a native crash of llama.cpp ends the server by a signal: say which, so the cell's log shows it
  if (signal && signal !== 'SIGTERM' && signal !== 'SIGINT')
    console.error(`serve-tiny-swa: the server was killed by ${signal}`);
  process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0));
});
