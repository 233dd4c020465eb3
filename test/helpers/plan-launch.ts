/**
 * Launching one configuration of a matrix plan the way the plan launches it (its argv and env, read
 * from the file), sending it exactly the requests one probe round sends (the plan's probe settings
 * and prompt text), and reading back what the server reported: the exercise tests' instrument for
 * showing that a level changes what the engine does for the probe's own requests.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { loadPlanFile } from '../../src/matrix/plan-load.js';
import { probeConfig, withDefaults } from '../../src/matrix/probe-cell.js';
import { recordGolden } from '../../src/probe/record.js';
import type { Recording } from '../../src/probe/recording.js';
import { repoRoot } from './cli.js';

export interface Launched {
  metrics: Map<string, number>;
  log: string;
  recording: Recording;
}

type Plan = ReturnType<typeof loadPlanFile>;

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** The plan's launch at these levels (every factor not named at its reference level). */
function argvFor(
  plan: Plan,
  levels: Record<string, string>,
  port: number,
  cellDir: string,
): { argv: string[]; env: Record<string, string> } {
  const fill = (w: string) =>
    w.replace('{faultline_root}', repoRoot).replace('{cell_dir}', cellDir).replace('{port}', String(port));
  const argv = plan.launch.argv.map(fill);
  const env: Record<string, string> = { ...plan.launch.env };
  plan.space.names.forEach((factor, f) => {
    const level = plan.space.levels[f].indexOf(levels[factor] ?? plan.space.levels[f][plan.baseline[f]]);
    assert.ok(level >= 0, `${factor} has a level ${levels[factor]}`);
    const fragment = plan.fragments[f][level];
    argv.push(...fragment.argv.map(fill));
    Object.assign(env, fragment.env);
  });
  return { argv, env };
}

/** "name{labels} value" lines → name (labels but model_name kept) → value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line.trim());
    if (!m) continue;
    const labels = (m[2] ?? '').replace(/model_name="[^"]*",?/, '').replace('{}', '');
    out.set(m[1] + labels, Number(m[3]));
  }
  return out;
}

/** Starts the launch in `dir/name`, sends one probe round, reads /metrics, and stops it. */
export async function launchAndProbe(
  planFile: string,
  plan: Plan,
  dir: string,
  name: string,
  levels: Record<string, string>,
): Promise<Launched> {
  const port = await freePort();
  const { argv, env } = argvFor(plan, levels, port, join(dir, name));
  const child: ChildProcess = spawn(argv[0], argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  try {
    // the plan's ready timeout, doubled: the tests start their launches two at a time on a loaded machine
    const deadline = Date.now() + 2 * plan.launch.readyTimeoutMs;
    while (
      !(await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      assert.ok(
        child.exitCode === null && child.signalCode === null,
        `${name} exited (${child.exitCode ?? child.signalCode}) before it was ready: ${log.slice(-800)}`,
      );
      assert.ok(
        Date.now() < deadline,
        `${name} was not ready in ${(2 * plan.launch.readyTimeoutMs) / 1000} s: ${log.slice(-800)}`,
      );
      await new Promise((r) => setTimeout(r, 500));
    }
    const o = withDefaults(plan.probe);
    const corpus = readFileSync(resolve(dirname(planFile), o.prompt_text!), 'utf8');
    const rec = await recordGolden(probeConfig(url, o, corpus, o.seed));
    assert.equal(rec.failed, 0, `${name}: ${rec.errors.join('; ')}`);
    const text = await (await fetch(`${url}/metrics`)).text();
    return { metrics: parseMetrics(text), log, recording: rec.recording };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

/** Launches each named configuration two at a time, as the plans' executors run cells. */
export async function launchAll(
  planFile: string,
  dir: string,
  launches: Record<string, Record<string, string>>,
): Promise<Map<string, Launched>> {
  const plan = loadPlanFile(planFile);
  const results = new Map<string, Launched>();
  const names = Object.keys(launches);
  for (let i = 0; i < names.length; i += 2)
    await Promise.all(
      names
        .slice(i, i + 2)
        .map(async (n) => results.set(n, await launchAndProbe(planFile, plan, dir, n, launches[n]))),
    );
  return results;
}

/** One sample of /metrics (the first whose labels, model_name aside, start as given). */
export const metric = (l: Launched, name: string): number => {
  for (const [k, v] of l.metrics) if (k === name || k.startsWith(`${name}{`)) return v;
  assert.fail(`no ${name} in /metrics`);
};

/** A setting as the llama.cpp runtime reports it in faultline:llama_cpp_config_info. */
export const configLabel = (l: Launched, label: string): string => {
  for (const k of l.metrics.keys()) {
    const m = new RegExp(`^faultline:llama_cpp_config_info\\{.*${label}="([^"]*)"`).exec(k);
    if (m) return m[1];
  }
  assert.fail('no faultline:llama_cpp_config_info in /metrics');
};

/** Largest |Δ logprob| of the chosen tokens over the steps both recordings share a prefix on. */
export function maxLogprobDelta(a: Recording, b: Recording): number {
  let worst = 0;
  a.exchanges.forEach((x, i) => {
    const y = b.exchanges[i];
    const sa = x.steps ?? [];
    const sb = y?.steps ?? [];
    for (let s = 0; s < Math.min(sa.length, sb.length); s++) {
      if (sa[s].token !== sb[s].token) break;
      worst = Math.max(worst, Math.abs(sa[s].logprob - sb[s].logprob));
    }
  });
  return worst;
}
