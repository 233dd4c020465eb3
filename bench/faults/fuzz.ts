/**
 * Hostile inputs to every parser that probe, report and matrix read: real inputs (the examples,
 * the test fixtures, responses of the engine's own server, a real golden and a real kernel dump)
 * mutated at random — a JSON/YAML node replaced by a hostile value, deleted or duplicated, or the
 * bytes flipped, cut, repeated or spliced. "Uncaught" is any exception other than the parser's
 * own error type (UserError; ResponseError for HTTP responses): for a user that is a stack trace
 * or "internal error" instead of a message.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as yamlStringify } from 'yaml';
import { isUserError } from '../../src/core/errors.js';
import { createRng, type Rng } from '../../src/core/rng.js';
import { loadLaunchFiles } from '../../src/deployment/load.js';
import { parseKernelDump } from '../../src/kernel/dump-format.js';
import { presetByName, DEFAULT_PRESET } from '../../src/kernel/presets.js';
import { writeVectors } from '../../src/kernel/vectors.js';
import { parseJournal } from '../../src/matrix/journal.js';
import { parsePlan } from '../../src/matrix/plan-load.js';
import { parseRecording, RECORDING_FORMAT } from '../../src/probe/recording.js';
import { generationFrom, parseCompletion, parseModels, parseTokenize, ResponseError, scoresFromEcho, scoresFromPromptLogprobs } from '../../src/probe/responses.js';
import { parsePromptFile } from '../../src/probe/suites.js';
import { loadInput } from '../../src/report/inputs/load.js';
import { post, testServer } from '../../src/server/testing.js';

const root = new URL('../../', import.meta.url).pathname;
const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

const HOSTILE: unknown[] = [
  null, true, false, 0, -1, 1.5, -0.0001, 1e308, -1e308, 2 ** 53 + 1, '', ' ', 'x'.repeat(5000), '\u0000', '../../etc/passwd',
  '{port}', '{nope}', '$(reboot)', '"', '\ud800', 'NaN', 'Infinity', [], {}, [[[]]], { __proto__: { polluted: 1 } }, { constructor: { prototype: {} } },
  Array.from({ length: 300 }, (_, i) => i), Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])),
];

function deep(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

/** Replaces, deletes or duplicates one random node of a JSON-like tree (copy-on-write). */
function mutateTree(value: unknown, rng: Rng, depth = 0): unknown {
  const isObj = typeof value === 'object' && value !== null;
  if (!isObj || (depth > 0 && rng.next() < 0.25)) {
    const r = rng.next();
    if (r < 0.05) return deep(200 + rng.int(1000));
    return HOSTILE[rng.int(HOSTILE.length)];
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return [HOSTILE[rng.int(HOSTILE.length)]];
    const copy = [...value];
    const i = rng.int(copy.length);
    const op = rng.next();
    if (op < 0.15) copy.splice(i, 1);
    else if (op < 0.25) copy.push(copy[i]);
    else copy[i] = mutateTree(copy[i], rng, depth + 1);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return { [String(HOSTILE[rng.int(HOSTILE.length)])]: HOSTILE[rng.int(HOSTILE.length)] };
  const k = keys[rng.int(keys.length)];
  const op = rng.next();
  if (op < 0.15) delete copy[k];
  else if (op < 0.22) copy[`${k}_extra`] = copy[k];
  else if (op < 0.27) copy['__proto__'] = copy[k];
  else copy[k] = mutateTree(copy[k], rng, depth + 1);
  return copy;
}

/** Byte-level damage: flips, cuts, repeats, splices of random bytes. */
function mutateBytes(bytes: Uint8Array, rng: Rng): Uint8Array {
  let b = Buffer.from(bytes);
  const rounds = 1 + rng.int(4);
  for (let r = 0; r < rounds; r++) {
    const op = rng.int(5);
    const at = b.length ? rng.int(b.length) : 0;
    if (op === 0 && b.length) b[at] ^= 1 << rng.int(8);
    else if (op === 1) b = b.subarray(0, at);
    else if (op === 2) b = Buffer.concat([b.subarray(0, at), Buffer.from(Array.from({ length: 1 + rng.int(16) }, () => rng.int(256))), b.subarray(at)]);
    else if (op === 3) {
      const len = Math.min(b.length - at, 1 + rng.int(64));
      b = Buffer.concat([b.subarray(0, at + len), b.subarray(at, at + len), b.subarray(at + len)]);
    } else if (b.length) b[at] = [0x7b, 0x7d, 0x5b, 0x5d, 0x22, 0x3a, 0x2c, 0x0a, 0x00, 0xff][rng.int(10)];
  }
  return b;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function mutateText(text: string, rng: Rng, format: 'json' | 'yaml' | 'text'): string {
  if (format !== 'text' && rng.next() < 0.6) {
    try {
      const tree = format === 'json' ? JSON.parse(text) : parseYaml(text);
      const mutated = mutateTree(tree, rng);
      return format === 'json' ? JSON.stringify(mutated) : yamlStringify(mutated);
    } catch {
      // not parseable (a mutated seed): damage the bytes instead
    }
  }
  return dec.decode(mutateBytes(enc.encode(text), rng));
}

/** Every part of the plan schema in a few lines: placeholders, env, json_args, reference, constraints, probe, executor. */
const SMALL_PLAN = `launch:
  argv: [node, "{faultline_root}/srv.js", --port, "{port}", --dir, "{cell_dir}"]
  env: { A: "{run_dir}" }
  json_args: { --attention-config: { backend: flashinfer } }
reference: { levels: { kv: bf16 } }
factors:
  kv: { levels: { bf16: {}, fp8: { argv: [--kv-cache-dtype, fp8] } } }
  q: { levels: { "on": {}, "off": { json_args: { --attention-config: { disable_flashinfer_q_quantization: true } } } } }
  spec: { role: choice, levels: { "off": {}, mtp: { env: { SPEC: mtp } } } }
constraints:
  - forbid: { kv: bf16, q: "off" }
    why: example
strength: 2
confirm: 1
probe: { suite: short, window: 32, requests: 4 }
executor: { parallel: 2, gpus: ["0", "1"] }
`;

export interface Parser {
  name: string;
  /** Runs one hostile input; throws only what the parser threw. */
  run(rng: Rng, i: number): Promise<void> | void;
  /** Errors that are the parser's answer to bad input, not a crash. */
  expected(e: unknown): boolean;
}

async function parsers(work: string): Promise<Parser[]> {
  const userError = (e: unknown) => isUserError(e);
  // the smaller real plans (the seed plan's strength-3 constraint checks cost ~70 ms a parse on a loaded machine)
  const plans = ['examples/scale-defect/matrix.yaml', 'test/fixtures/matrix/seed-like.yaml', SMALL_PLAN].map((p) => (p === SMALL_PLAN ? p : read(p)));
  const golden = JSON.stringify({
    format: RECORDING_FORMAT, version: 1, model: 'tiny', server: 'http://127.0.0.1:1', suite: 'window-crossing', window: 32, pageSize: 8, logprobs: 2, seed: 0,
    exchanges: [
      { id: 'p0', promptTokens: [256, 72, 105], maxTokens: 2, steps: [{ token: 5, logprob: -0.1, top: [[5, -0.1], [6, -2]] }, { token: 7, logprob: -0.3, top: [[7, -0.3]] }], finishReason: 'length' },
      { id: 'p1', promptTokens: [256, 1], maxTokens: 1, error: 'HTTP 500' },
    ],
  });
  const vectors = join(work, 'vectors');
  writeVectors(vectors, presetByName(DEFAULT_PRESET), { seed: 1, unitScales: false });
  const dumps = readdirSync(vectors).filter((f) => f.endsWith('.safetensors')).slice(0, 3).map((f) => readFileSync(join(vectors, f)));
  const launchDir = join(root, 'test/fixtures/launch-configs');
  const launches = readdirSync(launchDir).filter((f) => /\.(sh|yaml)$/.test(f)).map((f) => ({ name: f, text: readFileSync(join(launchDir, f), 'utf8') }));
  const reports = ['test/fixtures/report/lint-seed-b200.json', 'test/fixtures/report/probe-fake-corrupt.json', 'test/fixtures/report/kernel-kv-dtype-controls.json', 'test/fixtures/report/seed-b200-run/attribution.json'].map(read);
  const journalText = read('test/fixtures/report/seed-b200-run/journal.jsonl');
  const server = testServer();
  const prompt = [256, 72, 105, 33];
  const responses = [
    (await post(server, '/v1/completions', { prompt, max_tokens: 4, logprobs: 3, prompt_logprobs: 3, return_tokens_as_token_ids: true, temperature: 0 })).text,
    (await post(server, '/v1/completions', { prompt, max_tokens: 1, logprobs: 3, echo: true, return_tokens_as_token_ids: true, temperature: 0 })).text,
    (await post(server, '/tokenize', { prompt: 'hello' })).text,
    await (await server.app.request('/v1/models')).text(),
  ];
  const file = (name: string, text: string | Uint8Array) => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };
  return [
    { name: 'matrix plans', expected: userError, run: (rng) => void parsePlan('fuzz.yaml', mutateText(plans[rng.int(plans.length)], rng, 'yaml')) },
    { name: 'goldens', expected: userError, run: (rng) => void parseRecording('fuzz-golden.json', mutateText(golden, rng, 'json')) },
    {
      name: 'kernel dumps',
      expected: userError,
      run: (rng) => {
        const seed = dumps[rng.int(dumps.length)];
        // mostly the JSON header (8-byte length, then JSON), sometimes anywhere
        const head = Number(Buffer.from(seed).readBigUInt64LE(0));
        const bytes = rng.next() < 0.5 && head < seed.length ? headerMutated(seed, head, rng) : mutateBytes(seed, rng);
        parseKernelDump(bytes, 'fuzz.safetensors');
      },
    },
    {
      name: 'launch files',
      expected: userError,
      run: (rng, i) => {
        const seed = launches[rng.int(launches.length)];
        const path = file(`l${i % 50}-${seed.name}`, mutateText(seed.text, rng, seed.name.endsWith('.yaml') ? 'yaml' : 'text'));
        loadLaunchFiles([path], { cwd: work });
      },
    },
    {
      name: 'HTTP responses',
      expected: (e) => e instanceof ResponseError || isUserError(e),
      run: (rng) => {
        const which = rng.int(responses.length);
        let json: unknown;
        try {
          json = JSON.parse(mutateText(responses[which], rng, 'json'));
        } catch {
          return; // not JSON: the client records "unparseable body" before any parser runs
        }
        if (which === 2) return void parseTokenize(json);
        if (which === 3) return void parseModels(json);
        const res = parseCompletion(json);
        generationFrom(res);
        if (which === 0) scoresFromPromptLogprobs(res, prompt, 1);
        else scoresFromEcho(res, prompt, 1);
      },
    },
    { name: 'probe prompt files', expected: userError, run: (rng) => void parsePromptFile(mutateText('{"prompt": "a b c", "max_tokens": 4}\n{"prompt": [1, 2, 3]}\n', rng, 'text'), 'fuzz.jsonl', 8) },
    {
      name: 'report inputs',
      expected: userError,
      run: async (rng, i) => {
        const path = file(`r${i % 50}.json`, mutateText(reports[rng.int(reports.length)], rng, 'json'));
        await loadInput(path, work);
      },
    },
    { name: 'matrix journals', expected: userError, run: (rng) => void parseJournal('fuzz/journal.jsonl', mutateText(journalText, rng, 'text')) },
  ];
}

function headerMutated(seed: Uint8Array, headerLength: number, rng: Rng): Uint8Array {
  const header = dec.decode(seed.slice(8, 8 + headerLength));
  const mutated = enc.encode(mutateText(header, rng, 'json'));
  const out = new Uint8Array(8 + mutated.length + seed.length - 8 - headerLength);
  Buffer.from(out.buffer).writeBigUInt64LE(BigInt(rng.next() < 0.9 ? mutated.length : rng.int(1 << 20)), 0);
  out.set(mutated, 8);
  out.set(seed.slice(8 + headerLength), 8 + mutated.length);
  return out;
}

export interface FuzzResult {
  inputs: number;
  uncaught: number;
}

export async function runFuzz(perParser: number, seed: number, say: (line: string) => void): Promise<FuzzResult> {
  const work = mkdtempSync(join(tmpdir(), 'faultline-fuzz-'));
  let inputs = 0;
  let uncaught = 0;
  try {
    for (const p of await parsers(work)) {
      const rng = createRng(seed * 7919 + p.name.length);
      const started = performance.now();
      const seen = new Map<string, number>();
      let rejected = 0;
      for (let i = 0; i < perParser; i++) {
        try {
          await p.run(rng, i);
        } catch (e) {
          if (p.expected(e)) rejected++;
          else {
            const key = `${(e as Error)?.name}: ${(e as Error)?.message?.slice(0, 160)}`;
            if (!seen.has(key)) say(`  uncaught in ${p.name} (input ${i}): ${key}\n${(e as Error)?.stack?.split('\n').slice(1, 4).join('\n')}`);
            seen.set(key, (seen.get(key) ?? 0) + 1);
            uncaught++;
          }
        }
        inputs++;
      }
      const bad = [...seen.values()].reduce((a, b) => a + b, 0);
      say(`fuzz ${p.name}: ${perParser} inputs, ${rejected} rejected with a message, ${perParser - rejected - bad} accepted, ${bad} uncaught, ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { inputs, uncaught };
}
