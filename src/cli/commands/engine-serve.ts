/**
 * `faultline engine serve --model DIR [--host 127.0.0.1] [--port 8000] [vLLM engine flags …]`:
 * the reference engine as an OpenAI-compatible HTTP server (src/server/). Flags go through the same
 * vLLM argv emulation as `engine generate`; every flag is checked, and the model loaded, BEFORE the
 * port is bound, so a bad flag exits 2 with a hint and never leaves a half-started server.
 * SIGTERM / SIGINT: stop accepting, let in-flight requests finish for --shutdown-timeout seconds,
 * abort the rest, exit 0.
 */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { ArgValue } from '../../deployment/vllm-args.js';
import type { FlagSpec } from '../../deployment/vllm-flags.js';
import { ACCEPTED_WITHOUT_EFFECT, ENGINE_FLAG_SPECS, resolveEngineSettings } from '../../engine/flags.js';
import { loadModel } from '../../engine/load-model.js';
import { LOGPROBS_MODES, type LogprobsMode } from '../../engine/processed-logprobs.js';
import { resolveSpecConfig } from '../../engine/speculative/config.js';
import { STATE_FAULT_NAMES, stateFaultModel, type StateFaultName } from '../../engine/state-faults.js';
import { API_SHAPES, NO_QUIRKS, parseQuirks, QUIRK_NAMES, type ApiShape, type ServeQuirks } from '../../server/api-shape.js';
import { SPEC_FAULT_MODELS, SPEC_FAULT_SUMMARY, type SpecFaultModel } from '../../engine/speculative/penalties-dropped.js';
import { buildServer, DEFAULT_LIMITS } from '../../server/build.js';
import type { SamplingDefaults } from '../../server/context.js';
import { listen } from '../../server/listen.js';
import type { ServerContext } from '../../server/context.js';
import type { Runner } from '../../server/runner.js';
import type { Hono } from 'hono';
import { LLAMA_CPP_FLAGS } from '../../llama-cpp/flags.js';
import type { CliIO } from '../io.js';
import { defaultModelDir } from './default-model.js';
import { parseEngineArgv } from './engine-argv.js';

/** `engine serve`'s flags beyond the engine's: vLLM's frontend flags plus three of the engine's own. */
const SERVE_FLAGS: readonly FlagSpec[] = [
  { dest: 'batch_variant_numerics', kind: 'bool', help: 'reduction order depends on batch composition' },
  { dest: 'max_request_body_bytes', kind: 'int' },
  { dest: 'shutdown_timeout', kind: 'float' },
  { dest: 'stateful_fault_model', kind: 'list', help: 'stateful KV-cache fault models to switch on' },
  { dest: 'api', kind: 'choice', choices: API_SHAPES, help: "the API shape: vllm (default), sglang (SGLang's native /generate, /model_info, /health_generate; no vLLM extensions on the OpenAI routes) or llama-server (llama.cpp's native /completion with n_probs, /props)" },
  { dest: 'serve_quirk', kind: 'list', help: `departures from the full vLLM API real servers show: ${QUIRK_NAMES.join(', ')}` },
  { dest: 'stream_interval', kind: 'int', help: 'tokens per streamed event (0: the whole completion in one event)' },
  { dest: 'spec_fault_model', kind: 'choice', choices: SPEC_FAULT_MODELS, help: 'a fault model of the speculative path (engine/speculative/penalties-dropped.ts)' },
];
/** vLLM flags `serve` handles itself (besides the engine flags of engine/flags.ts). */
const OWN = new Set([
  ...SERVE_FLAGS.map((f) => f.dest),
  'host',
  'port',
  'served_model_name',
  'max_num_seqs',
  'max_num_batched_tokens',
  'enable_chunked_prefill',
  'max_logprobs',
  'speculative_config',
  'return_tokens_as_token_ids',
  'generation_config',
  'enable_prefix_caching',
  'num_gpu_blocks_override',
  'spec_fault_model',
  'logprobs_mode',
]);

const HELP = `
Flags (parsed like vLLM's; JSON flags also take dotted keys):
  --model DIR                      model directory; default models/tiny-swa
  --host H --port P                bind address (default 127.0.0.1:8000; --port 0 picks a free port);
                                   prints "listening on http://H:P" once ready
  --served-model-name NAME         the model id clients send (default: the directory name)
  --speculative-config JSON        method ngram | suffix | mtp, num_speculative_tokens,
                                   prompt_lookup_min/max, suffix_decoding_* (vLLM's keys)
  --max-num-seqs N                 sequences per engine step (default 16)
  --max-num-batched-tokens N       tokens per engine step (default: no limit); decoding sequences
                                   go first, a prompt that does not fit is fed in chunks
  --[no-]enable-chunked-prefill    chunks on (default, as in vLLM) or off: a prompt then waits until
                                   it fits a step whole (the budget must be ≥ --max-model-len)
  --max-model-len N --max-logprobs N (default 20) --return-tokens-as-token-ids
  --logprobs-mode raw_logprobs|processed_logprobs
                                   reported log-probabilities: the model's (default) or after
                                   penalties and min_tokens (what the sampler chose from)
  --generation-config auto|vllm    auto (default): sampling defaults from the model's generation_config.json
  --batch-variant-numerics         matmul reduction order depends on the batch (benign drift, like real servers)
  --max-request-body-bytes N       larger bodies get 413 (default ${DEFAULT_LIMITS.maxBodyBytes})
  --shutdown-timeout S             on SIGTERM, seconds in-flight requests may finish (default 10)
  --[no-]enable-prefix-caching     reuse the KV blocks of shared prefixes across requests (default
                                   off, unlike vLLM V1: the engine then runs on one thread)
  --num-gpu-blocks-override N      KV budget in blocks of --block-size tokens (default: max_num_seqs
                                   full-length sequences): when it runs out, the newest running
                                   request is preempted and later recomputed, as in vLLM
  --stateful-fault-model NAME …    switch on deliberate KV-state bugs (off by default; models of
                                   public bugs, for testing probes): ${STATE_FAULT_NAMES.join(', ')}
  --api vllm|sglang                answer in vLLM's API shape (default) or SGLang's: native POST /generate
                                   (token-id logprobs of prompt and output), GET /model_info, GET /health_generate,
                                   and OpenAI routes without vLLM's prompt_logprobs / return_tokens_as_token_ids;
  --api llama-server               llama.cpp's native POST /completion (n_probs log-probabilities, token ids)
                                   and GET /props beside the OpenAI routes
  --stream-interval N              tokens per streamed event (default 1; the last event may carry
                                   fewer), as servers with a stream interval, accepted drafts or a
                                   buffering proxy send them; 0: the whole completion in one event
  --serve-quirk QUIRK …            answer as servers without parts of vLLM's API do, for testing
                                   clients: no-kv-capacity (no vllm:cache_config_info on /metrics);
                                   stop-at-token=ID (/v1/completions drops ignore_eos and min_tokens,
                                   and token ID ends a generation as an EOS would: a server that
                                   stops early)
  --spec-fault-model specdec-penalties-dropped
                                   verify steps ignore sampling penalties, as vLLM V1 did before
                                   PR #19482 (FL013); off by default, needs --speculative-config
  engine flags as for \`engine generate\`: --emulate, --attention-backend, --attention-config,
  --kv-cache-dtype, --block-size, --dtype, --seed
  ${Object.keys(ACCEPTED_WITHOUT_EFFECT)
    .map((d) => `--${d.replace(/_/g, '-')}`)
    .join(', ')} are accepted without effect.
Runtime:
  --runtime faultline|llama.cpp    faultline (default): the reference engine, flags as above.
                                   llama.cpp: llama.cpp v0.4.0 (node-llama-cpp 3.21.1, CPU) on a GGUF from
                                   \`faultline engine export-gguf\`, with llama-server's option names:
${LLAMA_CPP_FLAGS.filter((f) => f.dest !== 'runtime')
  .map((f) => {
    const names = `    ${[...f.names, ...(f.negatives ?? [])].join(', ')}${f.kind === 'bool' ? '' : ' V'}`;
    return names.length < 36 ? names.padEnd(37) + f.help : `${names}\n${' '.repeat(37)}${f.help}`;
  })
  .join('\n')}
    LLAMA_ATTN_ROT_DISABLE=1 (environment) turns off llama.cpp's Hadamard rotation of quantized K/V
Endpoints: GET /health, GET /version, GET /v1/models, POST /v1/completions, POST /v1/chat/completions,
  POST /tokenize, POST /detokenize, GET /metrics; with --api sglang also POST /generate,
  GET /model_info, GET /get_model_info, GET /health_generate.
Refused with 400 (never silently ignored), as the engine does not implement them: best_of > 1,
  min_p other than 0, logit_bias, beam search, tools, response_format other than {"type": "text"} (JSON mode), suffix (fill-in-the-middle), a
  custom chat_template; and, as vLLM refuses it, stream_options without stream.

Examples:
  faultline engine serve --port 8000
  faultline engine serve --enable-prefix-caching --num-gpu-blocks-override 64 \\
      --stateful-fault-model stale-prefix-hash --port 8002
  faultline engine serve --emulate sm100-affected --kv-cache-dtype fp8_e4m3 \\
      --attention-config '{"disable_flashinfer_q_quantization": true}' \\
      --speculative-config '{"method": "mtp", "num_speculative_tokens": 7}' --port 8001
  faultline engine serve --api sglang --port 30000     (SGLang's native endpoints beside OpenAI's)
Exit status: 0 after a clean shutdown, 2 for a bad flag or model (before binding).
`;

export function registerEngineServe(engine: Command, io: CliIO, exit: (code: number) => void): void {
  engine
    .command('serve')
    .description('serve the engine over an OpenAI-compatible HTTP API (vLLM field names)')
    .argument('[flags...]', 'vLLM-style flags (see below)')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help')
    .addHelpText('after', HELP)
    .action(async (flags: string[]) => {
      await runServe(flags, io);
      exit(0);
    });
}

function parseFlags(flags: string[], io: CliIO) {
  return parseEngineArgv(flags, io.cwd, [...ENGINE_FLAG_SPECS, ...SERVE_FLAGS], 'faultline engine serve');
}

function quirksOf(args: Map<string, ArgValue>): ServeQuirks {
  const v = args.get('serve_quirk');
  if (!v) return NO_QUIRKS;
  const words = (Array.isArray(v.value) ? v.value : [v.value]).flatMap((w) => String(w).split(','));
  const r = parseQuirks(words);
  if ('bad' in r) throw new UserError(`--serve-quirk ${r.bad} is not a quirk`, { code: 'E_USAGE', at: v.at, hint: `quirks: ${QUIRK_NAMES.join(', ')}` });
  return r.quirks;
}

function positiveInt(args: Map<string, ArgValue>, dest: string, fallback: number, min = 1): number {
  const v = args.get(dest);
  if (!v) return fallback;
  const n = Number(v.value);
  if (!Number.isInteger(n) || n < min) throw new UserError(`--${dest.replace(/_/g, '-')} must be an integer ≥ ${min}`, { code: 'E_USAGE', at: v.at, hint: 'see `faultline engine serve --help`' });
  return n;
}

/** --max-num-batched-tokens and --[no-]enable-chunked-prefill, checked as vLLM checks them at startup. */
function stepTokenBudget(args: Map<string, ArgValue>, maxModelLen: number): { maxNumBatchedTokens?: number; chunkedPrefill: boolean; note?: string } {
  const chunkedPrefill = args.get('enable_chunked_prefill')?.value !== false;
  if (!args.has('max_num_batched_tokens'))
    return { chunkedPrefill, note: args.has('enable_chunked_prefill') ? '--[no-]enable-chunked-prefill changes nothing without --max-num-batched-tokens: a step has no token limit' : undefined };
  const maxNumBatchedTokens = positiveInt(args, 'max_num_batched_tokens', 0);
  if (!chunkedPrefill && maxNumBatchedTokens < maxModelLen)
    throw new UserError(`--max-num-batched-tokens ${maxNumBatchedTokens} is smaller than max_model_len ${maxModelLen}, and chunked prefill is off: the longest prompt could never be scheduled`, {
      code: 'E_USAGE',
      at: args.get('max_num_batched_tokens')?.at,
      hint: `raise --max-num-batched-tokens to at least ${maxModelLen}, lower --max-model-len, or enable chunked prefill`,
    });
  return { maxNumBatchedTokens, chunkedPrefill };
}

/** --stateful-fault-model NAME … (also comma-separated): each a known model. */
function statefulFaultModels(arg: ArgValue | undefined): Set<StateFaultName> {
  const names = arg ? (arg.value as string[]).flatMap((v) => v.split(',')).filter(Boolean) : [];
  for (const n of names)
    if (!(STATE_FAULT_NAMES as readonly string[]).includes(n))
      throw new UserError(`--stateful-fault-model ${n} is not a stateful fault model`, { code: 'E_USAGE', at: arg?.at, hint: `use one or more of ${STATE_FAULT_NAMES.join(', ')}` });
  return new Set(names as StateFaultName[]);
}

/** --num-gpu-blocks-override: at least one longest sequence must fit, as vLLM checks at startup. */
function kvBlockBudget(args: Map<string, ArgValue>, pageSize: number, longest: number): number | undefined {
  if (!args.has('num_gpu_blocks_override')) return undefined;
  const n = positiveInt(args, 'num_gpu_blocks_override', 0);
  const need = Math.ceil(longest / pageSize);
  if (n < need)
    throw new UserError(`--num-gpu-blocks-override ${n} blocks of ${pageSize} tokens cannot hold one sequence of max_model_len (${longest} tokens with drafts)`, {
      code: 'E_USAGE',
      at: args.get('num_gpu_blocks_override')?.at,
      hint: `use at least ${need} blocks, or lower --max-model-len`,
    });
  return n;
}

/** --logprobs-mode: the two of vLLM's four modes the engine implements. */
function logprobsModeOf(args: Map<string, ArgValue>): LogprobsMode {
  const v = args.get('logprobs_mode');
  if (!v) return 'raw_logprobs';
  const mode = String(v.value);
  if (!(LOGPROBS_MODES as readonly string[]).includes(mode))
    throw new UserError(`--logprobs-mode ${mode} is not implemented by the faultline engine`, { code: 'E_ENGINE_FLAG', at: v.at, hint: `use ${LOGPROBS_MODES.join(' or ')}` });
  return mode as LogprobsMode;
}

/** vLLM's --generation-config auto: temperature / top_p / top_k from the model's generation_config.json. */
function samplingDefaults(modelDir: string, mode: string): { defaults: Partial<SamplingDefaults>; note?: string } {
  const path = resolve(modelDir, 'generation_config.json');
  if (mode === 'vllm' || !existsSync(path)) return { defaults: {} };
  let g: Record<string, unknown>;
  try {
    g = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new UserError(`${path}: ${(e as Error).message}`, { code: 'E_MODEL', hint: 'fix the file or pass --generation-config vllm' });
  }
  const d: Partial<SamplingDefaults> = {};
  if (typeof g.temperature === 'number') d.temperature = g.temperature;
  if (typeof g.top_p === 'number') d.topP = g.top_p;
  if (typeof g.top_k === 'number') d.topK = g.top_k;
  return { defaults: d, note: Object.keys(d).length ? `sampling defaults from generation_config.json: ${JSON.stringify(d)}` : undefined };
}

/** `--runtime faultline|llama.cpp` (or `--runtime=…`), wherever it stands. */
function runtimeOf(flags: readonly string[]): string {
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] === '--runtime') return flags[i + 1] ?? '';
    if (flags[i].startsWith('--runtime=')) return flags[i].slice('--runtime='.length);
  }
  return 'faultline';
}

function withoutRuntime(flags: readonly string[]): string[] {
  return flags.filter((f, i) => f !== '--runtime' && flags[i - 1] !== '--runtime' && !f.startsWith('--runtime='));
}

async function runServe(flags: string[], io: CliIO): Promise<void> {
  const runtime = runtimeOf(flags);
  if (runtime === 'llama.cpp') {
    const { runLlamaCppServe } = await import('./engine-serve-llama-cpp.js');
    return runLlamaCppServe(flags, io, listenUntilStopped);
  }
  if (runtime !== 'faultline') throw new UserError(`--runtime ${runtime} is not a runtime`, { code: 'E_USAGE', hint: 'use --runtime faultline (default) or --runtime llama.cpp' });
  flags = withoutRuntime(flags);
  const { args, model: modelArg } = parseFlags(flags, io);
  const modelDir = modelArg ? resolve(io.cwd, modelArg.value) : defaultModelDir(io.cwd);
  if (!modelDir) throw new UserError('no --model given and models/tiny-swa does not exist', { code: 'E_USAGE', hint: 'pass --model DIR (a directory with config.json and safetensors)' });
  const model = loadModel(modelDir);
  const settings = resolveEngineSettings(args, model.config, OWN);
  const resolvedSpec = resolveSpecConfig(args.get('speculative_config'), { numMtpLayers: model.config.numMtpLayers, hasMtpHead: model.weights.mtp !== null });
  const specFault = args.get('spec_fault_model')?.value as SpecFaultModel | undefined;
  const spec = resolvedSpec && specFault ? { ...resolvedSpec, faultModel: specFault } : resolvedSpec;
  const host = String(args.get('host')?.value ?? '127.0.0.1');
  const port = positiveInt(args, 'port', 8000, 0);
  if (port > 65535) throw new UserError('--port must be ≤ 65535', { code: 'E_USAGE', at: args.get('port')?.at });
  const names = args.get('served_model_name')?.value;
  const modelId = Array.isArray(names) && names.length ? String(names[0]) : basename(modelDir);
  const genMode = String(args.get('generation_config')?.value ?? 'auto');
  const gen = samplingDefaults(modelDir, genMode === 'vllm' ? 'vllm' : 'auto');
  const shutdownArg = args.get('shutdown_timeout');
  const shutdownSeconds = shutdownArg ? Number(shutdownArg.value) : 10;
  if (!Number.isFinite(shutdownSeconds) || shutdownSeconds < 0) throw new UserError('--shutdown-timeout must be a number of seconds ≥ 0', { code: 'E_USAGE', at: shutdownArg?.at });
  const notes = [...settings.notes, ...(spec?.notes ?? [])];
  const stateFaults = statefulFaultModels(args.get('stateful_fault_model'));
  const kvBudget = kvBlockBudget(args, settings.pageSize, settings.maxModelLen + (spec?.numSpeculativeTokens ?? 0));
  if (gen.note) notes.push(gen.note);
  const budget = stepTokenBudget(args, settings.maxModelLen);
  if (budget.note) notes.push(budget.note);

  const built = buildServer({
    model,
    modelId,
    settings,
    spec,
    maxNumSeqs: positiveInt(args, 'max_num_seqs', 16),
    maxNumBatchedTokens: budget.maxNumBatchedTokens,
    chunkedPrefill: budget.chunkedPrefill,
    batchVariantNumerics: args.get('batch_variant_numerics')?.value === true,
    limits: {
      maxBodyBytes: positiveInt(args, 'max_request_body_bytes', DEFAULT_LIMITS.maxBodyBytes),
      maxLogprobs: positiveInt(args, 'max_logprobs', DEFAULT_LIMITS.maxLogprobs, -1),
    },
    defaults: gen.defaults,
    returnTokensAsTokenIds: args.get('return_tokens_as_token_ids')?.value === true,
    prefixCaching: args.get('enable_prefix_caching')?.value === true,
    numGpuBlocks: kvBudget,
    stateFaults,
    apiShape: (args.get('api')?.value as ApiShape | undefined) ?? 'vllm',
    logprobsMode: logprobsModeOf(args),
    streamInterval: positiveInt(args, 'stream_interval', 1, 0),
    quirks: quirksOf(args),
  });

  const a = settings.attention;
  const backend = a.backend === 'FLASHINFER' ? `FLASHINFER (${a.bookkeeping} bookkeeping${a.disableQQuantization ? ', Q quantization disabled' : ''})` : 'REFERENCE';
  io.err(`engine: ${modelDir} as "${modelId}" · emulate ${settings.emulation} · ${backend} · KV ${settings.kvDtype}, block ${settings.pageSize} · ${settings.precision} · max_model_len ${settings.maxModelLen}\n`);
  if (spec) io.err(`speculative decoding: ${spec.method}, num_speculative_tokens ${spec.numSpeculativeTokens}\n`);
  if (a.backend === 'FLASHINFER' && a.faultModel) io.err(`note: ${a.faultModel.summary}\n`);
  if (specFault) io.err(`note: ${spec ? SPEC_FAULT_SUMMARY[specFault] : `--spec-fault-model ${specFault} has no effect without --speculative-config`}\n`);
  for (const n of notes) io.err(`note: ${n}\n`);
  for (const f of stateFaults) io.err(`note: stateful fault model ${f} is on (a MODEL of a public bug): ${stateFaultModel(f).summary}\n`);
  if (built.ctx.quirks !== NO_QUIRKS) io.err(`note: serving with quirks: ${[built.ctx.quirks.noKvCapacity ? 'no-kv-capacity' : '', built.ctx.quirks.stopAtToken !== undefined ? `stop-at-token=${built.ctx.quirks.stopAtToken}` : ''].filter(Boolean).join(', ')}\n`);
  if (built.ctx.streamInterval !== 1) io.err(`streaming: ${built.ctx.streamInterval === 0 ? 'the whole completion in one event' : `${built.ctx.streamInterval} tokens per event`}\n`);
  if (built.engine.kvBlocks) io.err(`KV cache: ${built.engine.kvBlocks.numBlocks} blocks of ${settings.pageSize} tokens · prefix caching ${built.engine.kvBlocks.prefixCaching ? 'on' : 'off'}\n`);

  await listenUntilStopped({ app: built.app, ctx: built.ctx, runner: built.runner }, host, port, shutdownSeconds, io);
}

/** Binds the port, prints "listening on URL", and on SIGTERM / SIGINT drains the runner and closes the server. */
export async function listenUntilStopped(built: { app: Hono; ctx: ServerContext; runner: Runner }, host: string, port: number, shutdownSeconds: number, io: CliIO): Promise<void> {
  const server = await listen(built.app, host, port);
  io.out(`listening on ${server.url}\n`);

  await new Promise<void>((done) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      io.err(`${signal}: shutting down (in-flight requests get ${shutdownSeconds} s)\n`);
      built.ctx.state = 'draining';
      void (async () => {
        const closed = server.close(shutdownSeconds * 1000 + 2000);
        await built.runner.shutdown(shutdownSeconds * 1000);
        await closed;
        process.off('SIGTERM', onTerm);
        process.off('SIGINT', onInt);
        io.err('server stopped\n');
        done();
      })();
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
}
