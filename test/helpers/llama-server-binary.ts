/**
 * llama.cpp's own llama-server, built from the source node-llama-cpp ships the first time a slow
 * test needs it (scripts/llama-server/build.sh, ~8 min on 2 cores), then kept under .tmp/llama-server.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './cli.js';

export const LLAMA_SERVER_BINARY = join(repoRoot, '.tmp/llama-server/build/bin/llama-server');

/** The binary, built first if missing; `say` gets the build's phases and wall time. */
export function ensureLlamaServer(say: (line: string) => void): string {
  if (existsSync(LLAMA_SERVER_BINARY)) return LLAMA_SERVER_BINARY;
  const started = Date.now();
  const built = spawnSync('sh', [join(repoRoot, 'scripts/llama-server/build.sh')], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 1_500_000,
  });
  say(`${built.stdout.trim()} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  assert.equal(built.status, 0, `scripts/llama-server/build.sh failed:\n${built.stderr.slice(-3000)}`);
  return LLAMA_SERVER_BINARY;
}
