/**
 * `faultline guard [--warn-only] [--refuse-on LEVEL] [--allow-unknown-flags] [--allow FLnnn]... -- COMMAND...`:
 * a container entrypoint wrapper. It learns the GPU, the installed vLLM / FlashInfer versions and the
 * model's config.json from the machine (for `llama-server …` and `ollama serve`: the version their own
 * binary prints for --version, and the GPU), runs the lint hazards on COMMAND, and then either runs
 * COMMAND unchanged (signals, stdio and exit status pass through) or refuses: findings on stderr,
 * exit 3, COMMAND never started. Missing facts stay unknown; only a definite finding refuses, and
 * only one whose evidence is at least `--refuse-on` (guard/refusal-policy.ts). A flag the installed
 * vLLM lacks (or one newer than faultline's tables) is an FL000 warning, never a refusal;
 * `--allow-unknown-flags` makes it a note; `--warn-only` never refuses: findings, and any error of
 * the check itself, go to stderr and COMMAND starts regardless, so a guard entrypoint cannot stop a
 * container.
 */
import type { Command } from 'commander';
import { UserError, describeUserError, isUserError } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import { reapplySglangRewrites } from '../../deployment/engines/sglang/deployment.js';
import { deploymentFromArgv } from '../../deployment/load.js';
import { readModelFacts } from '../../deployment/model-config.js';
import { lintDeployments, splitBySignal } from '../../hazards/evaluate.js';
import { dependOnFactsLine } from '../../hazards/formatters/depend-on-facts.js';
import { formatText } from '../../hazards/formatters/text.js';
import { execChild } from '../../hazards/guard/exec-child.js';
import { findModelConfig } from '../../hazards/guard/hf-cache.js';
import type { GpuFacts } from '../../deployment/deployment.js';
import { isAbsolute, resolve } from 'node:path';
import { gatherBinaryVersion, gatherGpu, gatherVersions, type Fact } from '../../hazards/guard/machine-facts.js';
import { DEFAULT_REFUSE_ON, parseRefuseOn, refuses } from '../../hazards/guard/refusal-policy.js';
import type { Confidence, Hazard } from '../../hazards/hazard.js';
import { runProbe, type Probe } from '../../hazards/guard/run-probe.js';
import { findHazard, hazards } from '../../hazards/index.js';
import { splitDashDash } from '../dash-dash.js';
import type { CliIO } from '../io.js';
import type { RegisterCommand } from './index.js';

export const GUARD_REFUSED = 3;

interface GuardOptions {
  warnOnly?: boolean;
  refuseOn: string;
  allowUnknownFlags?: boolean;
  allow: string[];
}

export interface GuardSettings {
  /** Never refuse: findings and check errors are reported, the command starts regardless. */
  warnOnly: boolean;
  /** Flags faultline does not know become notes instead of an error. */
  allowUnknownFlags: boolean;
  allowed: Set<string>;
  /** The weakest evidence that refuses (confirmed ≥ reproduced ≥ reported); default reproduced. */
  refuseOn?: Confidence;
  /** The hazards to evaluate (tests); the catalog by default. */
  catalog?: readonly Hazard[];
}

const collect = (v: string, prev: string[]) => [...prev, v];

export const registerGuard: RegisterCommand = (program: Command, io: CliIO, exit) => {
  program
    .command('guard')
    .description(
      'run a vLLM, SGLang, llama-server or ollama serve launch only if no known silent-corruption hazard applies (container entrypoint wrapper)',
    )
    .argument('<command...>', 'the launch, after --: faultline guard -- vllm serve MODEL …')
    .option(
      '--warn-only',
      'never refuse: report findings (and any error of the check) on stderr, then start the command',
    )
    .option(
      '--refuse-on <level>',
      'the weakest evidence that refuses: confirmed, reproduced (confirmed or reproduced errors) or reported (every hazard, warnings too)',
      DEFAULT_REFUSE_ON,
    )
    .option(
      '--allow-unknown-flags',
      'vLLM flags faultline does not know (newer vLLM, forks) become notes instead of FL000 warnings',
    )
    .option('--allow <hazard>', 'start despite this hazard (FLnnn or alias); repeatable', collect, [])
    .addHelpText(
      'after',
      `
As a container entrypoint (the image's CMD becomes the guarded command):
  ENTRYPOINT ["faultline", "guard", "--"]
  CMD ["vllm", "serve", "google/gemma-3-27b-it", "--kv-cache-dtype", "fp8"]
With --warn-only the container always starts: use it to roll guard out, or where a refusal
must never stop serving. Without it, a malformed launch exits 2 and a hazardous one exits 3.

Examples:
  faultline guard -- vllm serve MODEL --kv-cache-dtype fp8
  faultline guard --allow FL001 -- vllm serve MODEL …        # start despite FL001
  faultline guard --refuse-on confirmed -- vllm serve MODEL … # refuse only on confirmed hazards
  faultline guard --refuse-on reported -- vllm serve MODEL …  # refuse on every hazard, reported ones too
  faultline guard --warn-only -- vllm serve MODEL --new-flag  # never refuses
  faultline guard -- llama-server -m model.gguf -ctk q8_0 -np 4 # version from llama-server --version
  faultline guard -- ollama serve                             # version from ollama --version; OLLAMA_* from the environment

Refusal policy (--refuse-on, default ${DEFAULT_REFUSE_ON}): a hazard's evidence is confirmed (merged fix or
maintainer-acknowledged), reproduced (a public reproduction with controls, or a one-factor-off
attribution) or reported (user reports). confirmed and reproduced refuse on error-severity hazards of
that evidence or stronger; reported refuses on every hazard that applies. A "possibly affected"
finding and FL000 (a flag faultline does not know) never refuse.

Exit status: the command's own (128 + signal number if a signal ended it); 3 when refused; 2 on usage errors.`,
    )
    .action(async (operands: string[], opts: GuardOptions, cmd: Command) => {
      const { after } = splitDashDash(cmd, operands);
      const command = after ?? operands;
      if (command.length === 0)
        throw new UserError('no command to guard', {
          code: 'E_USAGE',
          hint: 'faultline guard -- vllm serve MODEL …',
        });
      const warnOnly = Boolean(opts.warnOnly);
      const refuseOn = parseRefuseOn(opts.refuseOn);
      const allowed = new Set<string>();
      for (const a of opts.allow) {
        const h = findHazard(a);
        if (h) allowed.add(h.id);
        else {
          const known = `known: ${hazards.map((x) => x.id).join(', ')}`;
          if (!warnOnly)
            throw new UserError(`--allow ${a}: no such hazard`, { code: 'E_USAGE', hint: known });
          io.err(`faultline guard: --warn-only: --allow ${a} names no hazard (${known}); going on\n`);
        }
      }
      exit(
        await guard(command, {
          warnOnly,
          refuseOn,
          allowUnknownFlags: Boolean(opts.allowUnknownFlags),
          allowed,
          io,
          probe: runProbe,
        }),
      );
    });
};

export async function guard(
  command: string[],
  o: GuardSettings & { io: CliIO; probe: Probe },
): Promise<number> {
  const { io } = o;
  const say = (line: string) => io.err(`faultline guard: ${line}\n`);
  let d: Deployment | undefined;
  try {
    d = await describeLaunch(command, o);
  } catch (e) {
    if (!o.warnOnly) throw e;
    // An entrypoint that must never refuse: say what could not be checked, and start.
    const what = isUserError(e)
      ? describeUserError(e)
      : `internal error: ${(e as Error)?.message ?? String(e)}`;
    say(`--warn-only: the launch could not be checked, so it starts unchecked:\n${what}`);
    return start(command, io);
  }
  if (!d) {
    say(`${command[0]} is not a vLLM, SGLang, llama-server or ollama serve launch: nothing to check; starting it`);
    return start(command, io);
  }
  // Hazards only missing machine facts could make apply never refuse; they are one line, as in lint.
  const catalog = o.catalog ?? hazards;
  const { findings, dependOnFacts } = splitBySignal(lintDeployments([d], catalog));
  const refuseOn = o.refuseOn ?? DEFAULT_REFUSE_ON;
  const blocking = findings.filter((f) => refuses(f, refuseOn, o.allowed));
  if (findings.length)
    io.err(
      formatText(findings, {
        color: false,
        launches: 1,
        hazards: catalog.length,
        notes: d.notes,
        dependOnFacts,
      }),
    );
  else {
    for (const note of d.notes) say(`note: ${note.value}`);
    const pending = dependOnFactsLine(dependOnFacts);
    if (pending) say(pending);
  }
  if (blocking.length && !o.warnOnly) {
    const ids = [...new Set(blocking.map((f) => f.hazard.id))];
    say(
      `refusing to start: ${ids.join(', ')} applies to this launch and silently corrupts output (--refuse-on ${refuseOn})`,
    );
    say(
      `fix the launch, or start anyway with ${ids.map((id) => `--allow ${id}`).join(' ')} (or --warn-only)`,
    );
    return GUARD_REFUSED;
  }
  if (blocking.length) say(`--warn-only: starting despite ${blocking.map((f) => f.hazard.id).join(', ')}`);
  return start(command, io);
}

async function start(command: string[], io: CliIO): Promise<number> {
  const r = await execChild(command, { env: io.env, cwd: io.cwd });
  if (r.startError) io.err(`faultline guard: ${r.startError}\n`);
  return r.code;
}

/** The launch as a Deployment with the machine's facts, or undefined when COMMAND is not vLLM or SGLang. */
async function describeLaunch(
  command: string[],
  o: { io: CliIO; probe: Probe; allowUnknownFlags: boolean },
): Promise<Deployment | undefined> {
  const { io, probe } = o;
  const family = llamaFamilyLaunch(command, o);
  if (family) return describeLlamaFamily(command, family, o);
  const program = command[0].split('/').pop() ?? '';
  const pythons = /^python(\d+(\.\d+)*)?$/.test(program)
    ? [command[0], 'python3', 'python']
    : ['python3', 'python'];
  const [gpu, versions] = await Promise.all([
    gatherGpu(probe, io.env),
    gatherVersions(probe, io.env, pythons),
  ]);
  let d: Deployment;
  try {
    // The installed vLLM picks the flag table: a flag its release lacks is a definite FL000.
    d = deploymentFromArgv(command, {
      cwd: io.cwd,
      env: io.env,
      allowUnknownFlags: o.allowUnknownFlags,
      vllmVersion: versions.vllm.value,
    });
  } catch (e) {
    // Malformed vLLM flags are a user error (vLLM would reject them too); a foreign command is not ours.
    if (isUserError(e) && e.code === 'E_NOT_VLLM') return undefined;
    throw e;
  }
  // read without a version by llamaFamilyLaunch; a launch that reads as one only now is theirs too
  if (d.engine === 'llama.cpp' || d.engine === 'ollama') return undefined;
  d.source = { ...d.source, kind: 'guard' };
  const facts: string[] = [];
  addGpu(d, gpu, facts);
  for (const key of [d.engine === 'sglang' ? 'sglang' : 'vllm', 'flashinfer'] as const) {
    const v = versions[key];
    if (v.value) {
      d.versions[key] = { value: v.value, at: { file: `<${v.how}>`, line: 1, column: 1 } };
      facts.push(`${key} ${v.value}`);
    } else facts.push(v.how);
  }
  if (!d.modelFacts && d.model) {
    const revision = d.args.get('revision')?.value;
    const loc = findModelConfig(d.model.value, {
      env: io.env,
      cwd: io.cwd,
      revision: typeof revision === 'string' ? revision : undefined,
    });
    if (loc.path) {
      d.modelFacts = readModelFacts(loc.path);
      facts.push(`model config from ${loc.how}`);
    } else facts.push(`model config unknown: ${loc.how}`);
  }
  // SGLang's own choices (attention backend, page size, speculative defaults) depend on these facts.
  if (d.engine === 'sglang') reapplySglangRewrites(d);
  io.err(`faultline guard: facts: ${facts.join('; ')}\n`);
  return d;
}

function addGpu(d: Deployment, gpu: Fact<GpuFacts>, facts: string[]): void {
  if (gpu.value) {
    d.gpu = { value: gpu.value, at: { file: '<nvidia-smi>', line: 1, column: 1 } };
    facts.push(`GPU ${gpu.value.name ?? ''} (sm${gpu.value.sm}) from ${gpu.how}`);
  } else facts.push(gpu.how);
}

const CONTAINER_RUNNERS = new Set(['docker', 'podman', 'nerdctl']);
const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * A llama-server or `ollama serve` launch, read without a version: which engine, and the reading
 * (kept for Ollama, whose reading does not depend on its version). Anything else — vLLM, SGLang, a
 * foreign command, or words the loader cannot read — is left to the vLLM path and its errors.
 */
function llamaFamilyLaunch(
  command: string[],
  o: { io: CliIO; allowUnknownFlags: boolean },
): Deployment | undefined {
  try {
    const d = deploymentFromArgv(command, { cwd: o.io.cwd, env: o.io.env, allowUnknownFlags: o.allowUnknownFlags });
    return d.engine === 'llama.cpp' || d.engine === 'ollama' ? d : undefined;
  } catch {
    return undefined;
  }
}

/**
 * llama-server and `ollama serve`: the version the launch's own binary reports (the flag table
 * llama-server's words are read with follows it), the GPU from nvidia-smi, and no model config
 * (their models are GGUF files or Ollama names, which guard does not open). A launch that runs in
 * a container image (`docker run …`, an image's entrypoint) is not asked: the binary on this
 * machine is not the one that runs, so the version is the image tag's or unknown.
 */
async function describeLlamaFamily(
  command: string[],
  first: Deployment,
  o: { io: CliIO; probe: Probe; allowUnknownFlags: boolean },
): Promise<Deployment> {
  const { io, probe } = o;
  const engine = first.engine as 'llama.cpp' | 'ollama';
  const what = engine === 'llama.cpp' ? 'llama.cpp' : 'Ollama';
  const word = first.argv?.[0]?.text ?? command[0];
  const inContainer =
    CONTAINER_RUNNERS.has(basename(command[0])) ||
    first.llamaCpp?.entry === 'server-image' ||
    first.llamaCpp?.entry === 'full-image';
  const binary = word.includes('/') && !isAbsolute(word) ? resolve(io.cwd, word) : word;
  const [gpu, version] = await Promise.all([
    gatherGpu(probe, io.env),
    inContainer
      ? Promise.resolve<Fact<string>>({
          how: `${what} version ${first.versions[engine === 'llama.cpp' ? 'llamaCpp' : 'ollama'] ? 'from the image tag' : 'unknown'}: the launch runs in a container image, whose binary this machine's ${basename(word)} --version would not describe`,
        })
      : gatherBinaryVersion(probe, io.env, engine, binary),
  ]);
  let d = first;
  if (engine === 'llama.cpp' && version.value)
    d = deploymentFromArgv(command, {
      cwd: io.cwd,
      env: io.env,
      allowUnknownFlags: o.allowUnknownFlags,
      llamaCppVersion: version.value,
    });
  d.source = { ...d.source, kind: 'guard' };
  const facts: string[] = [];
  addGpu(d, gpu, facts);
  const key = engine === 'llama.cpp' ? 'llamaCpp' : 'ollama';
  if (version.value) {
    d.versions[key] = { value: version.value, at: { file: `<${version.how}>`, line: 1, column: 1 } };
    facts.push(`${what} ${version.value} from ${version.how}`);
  } else {
    const fromImage = d.versions[key]?.value;
    facts.push(fromImage ? `${what} ${fromImage} from the image tag` : version.how);
    if (!fromImage) d.notes.push({ value: version.how });
  }
  io.err(`faultline guard: facts: ${facts.join('; ')}\n`);
  return d;
}
