#!/usr/bin/env node
// Builds the native matmul addon (native/kernels.c → build/Release/faultline_kernels.node) with the
// node-gyp that npm carries, against this Node's own headers (the Node install's include/node, so
// nothing is downloaded). `npm ci` runs it as the package's install script. A machine without a C
// compiler, Python or the headers gets a warning and no addon: the engine then runs its WebAssembly
// kernels (bit-identical, slower). FAULTLINE_NATIVE=0 skips the build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const warn = (why) => {
  console.warn(`faultline: native kernels not built (${why}); the engine uses its WebAssembly kernels`);
  process.exit(0);
};
if (process.env.FAULTLINE_NATIVE === '0') warn('FAULTLINE_NATIVE=0');
const nodeDir = resolve(dirname(process.execPath), '..');
if (!existsSync(join(nodeDir, 'include', 'node', 'node_api.h'))) warn(`no Node headers under ${nodeDir}/include/node`);
// npm tells its scripts where its node-gyp is; elsewhere, npm's copy next to this Node
const candidates = [process.env.npm_config_node_gyp, join(nodeDir, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')];
const gyp = candidates.find((p) => p && existsSync(p));
if (!gyp) warn('node-gyp not found');
const r = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${nodeDir}`, '--release'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
if (r.status !== 0) warn(`node-gyp exited ${r.status ?? r.signal}`);
