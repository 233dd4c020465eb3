/**
 * What guard learns from the machine it runs on: the GPU (nvidia-smi), and the installed vLLM,
 * SGLang and FlashInfer versions (importlib.metadata in the Python that will run vLLM). Each fact is either
 * found, with where it came from, or missing, with why — never guessed.
 */
import type { GpuFacts } from '../../deployment/deployment.js';
import { parseNvidiaSmiCsv } from '../../deployment/gpu.js';
import type { Probe } from './run-probe.js';

export interface Fact<T> {
  value?: T;
  /** Where it came from ("nvidia-smi", "python3 importlib.metadata"), or why it is missing. */
  how: string;
}

export async function gatherGpu(probe: Probe, env: NodeJS.ProcessEnv): Promise<Fact<GpuFacts>> {
  const r = await probe('nvidia-smi', ['--query-gpu=name,compute_cap', '--format=csv,noheader'], {
    env,
    timeoutMs: 10_000,
  });
  if (!r.ok) return { how: `GPU unknown: ${r.why}` };
  let gpus: GpuFacts[];
  try {
    gpus = parseNvidiaSmiCsv(r.stdout);
  } catch (e) {
    return { how: `GPU unknown: could not read nvidia-smi output (${(e as Error).message})` };
  }
  if (gpus.length === 0) return { how: 'GPU unknown: nvidia-smi listed no GPU' };
  const distinct = new Set(gpus.map((g) => g.sm));
  if (distinct.size > 1)
    return {
      how: `GPU unknown: nvidia-smi lists GPUs of different architectures (${gpus.map((g) => g.name ?? g.sm).join(', ')})`,
    };
  return { value: gpus[0], how: `nvidia-smi (${gpus.length} GPU${gpus.length === 1 ? '' : 's'})` };
}

/** Prints "name=version" per package, empty when not installed. */
const VERSION_SCRIPT = [
  'import importlib.metadata as m',
  'for p in ("vllm", "sglang", "flashinfer-python", "flashinfer"):',
  '    try:',
  '        print(p + "=" + m.version(p))',
  '    except Exception:',
  '        print(p + "=")',
].join('\n');

export interface InstalledVersions {
  vllm: Fact<string>;
  sglang: Fact<string>;
  flashinfer: Fact<string>;
}

/**
 * Asks each Python in turn (the launch's own interpreter first when it is one) for the installed
 * versions; the first interpreter that answers decides.
 */
export async function gatherVersions(
  probe: Probe,
  env: NodeJS.ProcessEnv,
  pythons: string[],
): Promise<InstalledVersions> {
  const tried: string[] = [];
  for (const py of pythons) {
    const r = await probe(py, ['-c', VERSION_SCRIPT], { env, timeoutMs: 20_000 });
    if (!r.ok) {
      tried.push(r.why ?? py);
      continue;
    }
    const found = new Map<string, string>();
    for (const line of r.stdout.split(/\r?\n/)) {
      const m = /^([\w.-]+)=(.*)$/.exec(line.trim());
      if (m && m[2]) found.set(m[1], m[2].trim());
    }
    const how = `${py} importlib.metadata`;
    const vllm = found.get('vllm');
    const fi = found.get('flashinfer-python') ?? found.get('flashinfer');
    const sglang = found.get('sglang');
    return {
      vllm: vllm ? { value: vllm, how } : { how: `vLLM version unknown: not installed for ${py}` },
      sglang: sglang ? { value: sglang, how } : { how: `SGLang version unknown: not installed for ${py}` },
      flashinfer: fi ? { value: fi, how } : { how: `FlashInfer version unknown: not installed for ${py}` },
    };
  }
  const why = `no Python answered (${tried.join('; ')})`;
  return {
    vllm: { how: `vLLM version unknown: ${why}` },
    sglang: { how: `SGLang version unknown: ${why}` },
    flashinfer: { how: `FlashInfer version unknown: ${why}` },
  };
}

/**
 * llama-server's `--version` ("version: 6123 (abc1234)", on stderr, then "built with …") → the build
 * number as a version `b6123`. Builds made without git print "version: 0 (unknown)": unknown.
 */
export function parseLlamaServerVersion(text: string): string | undefined {
  const m = /^\s*version:\s*(\d+)\s*(?:\(([0-9a-f]+|unknown)\))?/im.exec(text);
  if (!m || Number(m[1]) === 0) return undefined;
  return `b${Number(m[1])}`;
}

/**
 * `ollama --version`: "ollama version is 0.12.3"; with no server running it warns and prints
 * "Warning: client version is 0.12.3" instead. A development build ("0.0.0") is unknown.
 */
export function parseOllamaVersion(text: string): string | undefined {
  const m = /(?:ollama version is|client version is)\s+v?(\d+\.\d+\.\d+[\w.+-]*)/i.exec(text);
  if (!m || /^0\.0\.0/.test(m[1])) return undefined;
  return m[1];
}

const firstLine = (text: string) => text.trim().split(/\r?\n/)[0]?.slice(0, 120) ?? '';

/**
 * The version the launch's own binary reports (`llama-server --version`, `ollama --version`). A
 * missing binary, a failure or output that names no version leaves it unknown, with why; a binary
 * that prints its version and then exits non-zero still counts (older llama-server builds did).
 */
export async function gatherBinaryVersion(
  probe: Probe,
  env: NodeJS.ProcessEnv,
  engine: 'llama.cpp' | 'ollama',
  binary: string,
): Promise<Fact<string>> {
  const what = engine === 'llama.cpp' ? 'llama.cpp' : 'Ollama';
  const parse = engine === 'llama.cpp' ? parseLlamaServerVersion : parseOllamaVersion;
  const r = await probe(binary, ['--version'], { env, timeoutMs: 10_000 });
  const text = `${r.stdout}\n${r.stderr ?? ''}`;
  const value = parse(text);
  const how = `${binary} --version`;
  if (value) return { value, how };
  if (!r.ok && !text.trim()) return { how: `${what} version unknown: ${r.why ?? `${binary} gave no answer`}` };
  const said = firstLine(text);
  return {
    how: `${what} version unknown: ${binary} --version ${said ? `printed no version faultline reads ("${said}")` : 'printed nothing'}${r.ok ? '' : ` (${r.why})`}`,
  };
}
