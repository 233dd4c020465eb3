/**
 * Runs each cell's server as a local process: execa with an argv array (never a shell), in its
 * own process group, on a free port, with stdout/stderr in RUN_DIR/cells/<cell>/, healthy once
 * GET <health path> answers 2xx, and stopped with SIGTERM then SIGKILL to the whole group.
 * Slot i gets CUDA_VISIBLE_DEVICES = gpus[i] when GPUs are given.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import type { Executor, LaunchRequest, LaunchResult } from './executor.js';
import { packageRoot } from '../core/package-root.js';
import { registerGroup, stopGroup } from './process-groups.js';

export interface LocalExecutorOptions {
  runDir: string;
  slots: number;
  /** CUDA_VISIBLE_DEVICES per slot. */
  gpus?: string[];
  cwd?: string;
  /** Health path, e.g. /health. */
  health: string;
  readyTimeoutMs: number;
  stopTimeoutMs: number;
  host?: string;
  /** The environment servers start from (default: faultline's own). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Told of each server's process group as it starts and once it is stopped (the journal records them). */
  onServerGroup?: (event: ServerGroupEvent) => void;
}

export type ServerGroupEvent = { kind: 'started' | 'stopped'; cellId: string; pgid: number };

const SECRET_NAME = /key|token|secret|password|credential/i;

/** A port the OS says is free right now (another process may still take it before the server binds). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(/\{(port|host|cell_dir|run_dir|faultline_root)\}/g, (_, name: string) => values[name]);
}

function redactArgv(argv: string[]): string[] {
  return argv.map((a, i) => (i > 0 && /^--.*(key|token|secret|password)/i.test(argv[i - 1]) ? '[redacted]' : a));
}

function tail(path: string, lines = 6): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n').slice(-800);
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LocalExecutor extends Executor {
  /**
   * Resolves true once every server launched is stopped again (false after `ms`): an interrupted
   * run waits here so that each server is stopped, and journaled as stopped, before faultline exits.
   */
  whenIdle(ms: number): Promise<boolean>;
}

export function createLocalExecutor(options: LocalExecutorOptions): LocalExecutor {
  const host = options.host ?? '127.0.0.1';
  let active = 0;
  return {
    slots: options.slots,
    async whenIdle(ms: number): Promise<boolean> {
      const deadline = Date.now() + ms;
      while (active > 0 && Date.now() < deadline) await sleep(25);
      return active === 0;
    },
    async launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult> {
      active++;
      let handedOver = false;
      try {
        const result = await launchOne(request, signal);
        handedOver = result.ok;
        if (!result.ok) return result;
        const { stop } = result.server;
        let counted = true;
        const stopOnce = async (): Promise<void> => {
          await stop();
          if (counted) active--;
          counted = false;
        };
        return { ok: true, server: { baseUrl: result.server.baseUrl, stop: stopOnce } };
      } finally {
        if (!handedOver) active--;
      }
    },
  };

  async function launchOne(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult> {
    const cellDir = join(options.runDir, 'cells', request.cellId);
    mkdirSync(cellDir, { recursive: true });
    const port = await freePort(host);
    const values = { port: String(port), host, cell_dir: cellDir, run_dir: options.runDir, faultline_root: packageRoot };
    const argv = request.argv.map((a) => fillPlaceholders(a, values));
    const overrides: Record<string, string> = Object.fromEntries(
      Object.entries(request.env).map(([k, v]) => [k, fillPlaceholders(v, values)]),
    );
    const gpu = request.gpus ?? options.gpus?.[request.slot];
    if (gpu !== undefined) overrides.CUDA_VISIBLE_DEVICES = gpu;
    const baseUrl = `http://${host}:${port}`;
    writeFileSync(
      join(cellDir, 'launch.json'),
      `${JSON.stringify(
        {
          cell: request.cellId,
          levels: request.levels,
          argv: redactArgv(argv),
          env: Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, SECRET_NAME.test(k) ? '[redacted]' : v])),
          slot: request.slot,
          baseUrl,
        },
        null,
        2,
      )}\n`,
    );
    const stdoutPath = join(cellDir, 'stdout.log');
    const stderrPath = join(cellDir, 'stderr.log');
    const out = openSync(stdoutPath, 'a');
    const err = openSync(stderrPath, 'a');
    let exited: { code?: number; signal?: string; message?: string } | undefined;
    const spawnOptions: Options = {
      cwd: options.cwd,
      env: { ...(options.baseEnv ?? process.env), ...overrides },
      extendEnv: false,
      detached: true, // its own process group: ours to end, and out of reach of the terminal's Ctrl-C
      cleanup: false, // process-groups.ts ends the whole group, not just the leader
      stdin: 'ignore',
      // File descriptors go straight to the child (execa supports integers at run time; its types
      // list only 3…9): no pipe through faultline that would break if faultline went away first.
      stdout: out as unknown as Options['stdout'],
      stderr: err as unknown as Options['stderr'],
      reject: false,
      buffer: false,
    };
    const subprocess = execa(argv[0], argv.slice(1), spawnOptions);
    closeSync(out);
    closeSync(err);
    const done = subprocess.then((r) => {
      exited = { code: r.exitCode, signal: r.signal, message: r.failed && r.exitCode === undefined ? r.shortMessage : undefined };
    });
    const pid = subprocess.pid;
    if (pid === undefined) {
      await done;
      return { ok: false, outcome: 'launch-failed', detail: `could not start ${argv[0]}: ${exited?.message ?? 'spawn failed'}` };
    }
    registerGroup(pid, options.stopTimeoutMs);
    options.onServerGroup?.({ kind: 'started', cellId: request.cellId, pgid: pid });
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        await stopGroup(pid, options.stopTimeoutMs);
        await done;
        options.onServerGroup?.({ kind: 'stopped', cellId: request.cellId, pgid: pid });
      })());

    const deadline = Date.now() + options.readyTimeoutMs;
    let interval = 100;
    while (true) {
      if (exited) {
        await stop(); // the leader is gone; its children may not be
        const how = exited.signal ? `was killed by ${exited.signal}` : `exited with status ${exited.code}`;
        const last = tail(stderrPath);
        return { ok: false, outcome: 'launch-failed', detail: `server ${how} before it was healthy${last ? `; stderr ends:\n${last}` : ''} (logs: ${cellDir})` };
      }
      if (signal.aborted) {
        await stop();
        return { ok: false, outcome: 'launch-failed', detail: 'interrupted while starting' };
      }
      if (Date.now() >= deadline) {
        await stop();
        return {
          ok: false,
          outcome: 'timeout',
          detail: `not healthy at ${baseUrl}${options.health} after ${Math.round(options.readyTimeoutMs / 1000)} s (logs: ${cellDir})`,
        };
      }
      try {
        const res = await fetch(`${baseUrl}${options.health}`, { signal: AbortSignal.timeout(Math.min(2000, Math.max(1, deadline - Date.now()))) });
        await res.arrayBuffer();
        if (res.ok) return { ok: true, server: { baseUrl, stop } };
      } catch {
        // not listening yet
      }
      await sleep(interval);
      interval = Math.min(1000, interval * 1.5);
    }
  }
}
