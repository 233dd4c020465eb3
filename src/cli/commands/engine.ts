/**
 * `faultline engine generate --model DIR (--prompt TEXT | --prompt-ids 1,2,3) [vLLM flags] …`:
 * runs the reference engine on one prompt. Flags go through the vLLM argv emulation (the same
 * grammar lint uses), so `--kv-cache-dtype`, `--attention-config` and friends mean what they mean
 * to vLLM; engine-only flags are added to that grammar. Exit 0 on success, 2 on bad input.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { UserError, type SourceLocation } from '../../core/errors.js';
import type { ArgValue } from '../../deployment/vllm-args.js';
import type { FlagSpec } from '../../deployment/vllm-flags.js';
import type { AttentionCallRecord } from '../../engine/attention/backend.js';
import { trtllmGenSwaSpecdec } from '../../engine/attention/fault-models.js';
import { createBackend } from '../../engine/emulate.js';
import { ACCEPTED_WITHOUT_EFFECT, ENGINE_FLAG_SPECS, resolveEngineSettings, type EngineSettings } from '../../engine/flags.js';
import { generate, type GenerateResult } from '../../engine/generate.js';
import { loadModel } from '../../engine/load-model.js';
import { singleSequenceEngine } from '../../engine/single-sequence-engine.js';
import { createByteTokenizer, type Tokenizer } from '../../engine/tokenizer.js';
import type { CliIO } from '../io.js';
import { registerEngineExportGguf } from './engine-export-gguf.js';
import { registerEngineServe } from './engine-serve.js';
import type { RegisterCommand } from './index.js';
import { defaultModelDir } from './default-model.js';
import { parseEngineArgv } from './engine-argv.js';

/** `engine generate`'s own flags, added to the vLLM grammar. */
const GENERATE_FLAGS: readonly FlagSpec[] = [
  { dest: 'prompt', kind: 'string' },
  { dest: 'prompt_ids', kind: 'string' },
  { dest: 'max_tokens', kind: 'int' },
  { dest: 'logprobs', kind: 'int' },
  { dest: 'temperature', kind: 'float' },
  { dest: 'top_p', kind: 'float' },
  { dest: 'top_k', kind: 'int' },
  { dest: 'json', kind: 'bool' },
];
const OWN = new Set(GENERATE_FLAGS.map((f) => f.dest));

const HELP = `
Flags (parsed like vLLM's; JSON flags also take dotted keys, last one wins):
  --model DIR                 model directory (config.json + safetensors); default models/tiny-swa
  --prompt TEXT               text prompt (BOS is prepended)      | exactly one of the two
  --prompt-ids 1,2,3          token ids, used as given            |
  --max-tokens N              tokens to generate (default 16)
  --temperature T --top-p P --top-k K --seed S    sampling (default greedy)
  --logprobs K                top-K log-probabilities per generated token
  --json                      one JSON object on stdout
  --emulate PRESET            reference (default): exact attention
                              sm100-affected: vLLM + FlashInfer on a B200 as reported in vllm#47847 —
                                trtllm-gen decode, "vllm-affected" scale bookkeeping and the fault MODEL
                                ${trtllmGenSwaSpecdec.name} (a model of an unpublished kernel defect)
                              sm100-fixed: the same routing, "fixed" bookkeeping, no fault model
  --attention-backend FLASHINFER|REFERENCE   overrides the preset's backend
  --attention-config JSON     keys: backend, disable_flashinfer_q_quantization, use_trtllm_attention
  --kv-cache-dtype auto|bfloat16|fp8|fp8_e4m3   auto = FP8 if the checkpoint declares an FP8 KV cache
  --block-size 16|32|64       KV page size (default 16)
  --dtype auto|bfloat16|float32   bfloat16 rounds like a BF16 server; float32 is exact
  --max-model-len N
Accepted without effect: ${Object.keys(ACCEPTED_WITHOUT_EFFECT)
  .map((d) => `--${d.replace(/_/g, '-')}`)
  .join(', ')}. Any other vLLM flag is an error.
Exit status: 0 success, 2 usage or input error.
`;

export const registerEngine: RegisterCommand = (program: Command, io: CliIO, exit) => {
  const engine = program.command('engine').description('the reference inference engine (exact CPU attention, emulated serving paths)');
  engine
    .command('generate')
    .description('generate tokens for one prompt')
    .argument('[flags...]', 'vLLM-style flags (see below)')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help')
    .addHelpText('after', HELP)
    .action((flags: string[]) => {
      runGenerate(flags, io);
      exit(0);
    });
  registerEngineServe(engine, io, exit);
  registerEngineExportGguf(engine, io, exit);
};

function runGenerate(flags: string[], io: CliIO): void {
  const parsed = parseFlags(flags, io);
  const args = parsed.args;
  const modelDir = parsed.model ? resolve(io.cwd, parsed.model.value) : defaultModelDir(io.cwd);
  if (!modelDir)
    throw new UserError('no --model given and models/tiny-swa does not exist', { code: 'E_USAGE', hint: 'pass --model DIR (a directory with config.json and safetensors)' });
  const model = loadModel(modelDir);
  const settings = resolveEngineSettings(args, model.config, OWN);
  const tokenizer = createByteTokenizer(model.config.bosTokenId, model.config.eosTokenId);
  const promptIds = readPrompt(args, tokenizer, model.config.vocabSize);
  const maxTokens = intArg(args, 'max_tokens', 16, 1);
  const logprobs = intArg(args, 'logprobs', 0, 0);
  if (promptIds.length + maxTokens > settings.maxModelLen)
    throw new UserError(`prompt (${promptIds.length} tokens) + --max-tokens ${maxTokens} exceeds the maximum context length ${settings.maxModelLen}`, {
      code: 'E_CONTEXT_LENGTH',
      hint: 'shorten the prompt or lower --max-tokens',
    });

  const backend = createBackend(settings.attention);
  const kernels = new Map<string, number>();
  let faultyPairs = 0;
  backend.onCall = (r: AttentionCallRecord) => {
    kernels.set(r.kernel, (kernels.get(r.kernel) ?? 0) + 1);
    faultyPairs += r.faultyPairs.length;
  };
  const eng = singleSequenceEngine(model, settings, { backend });
  const started = performance.now();
  const result = generate(eng, promptIds, {
    maxTokens,
    sampling: {
      temperature: floatArg(args, 'temperature', 0),
      topK: intArg(args, 'top_k', 0, -1),
      topP: floatArg(args, 'top_p', 1),
    },
    seed: settings.seed,
    logprobs,
  });
  const seconds = (performance.now() - started) / 1000;
  const run = { modelDir, settings, result, seconds, kernels, faultyPairs, tokenizer };
  if (args.get('json')?.value === true) io.out(JSON.stringify(jsonReport(run), null, 2) + '\n');
  else textReport(run, io);
}

interface Run {
  modelDir: string;
  settings: EngineSettings;
  result: GenerateResult;
  seconds: number;
  kernels: Map<string, number>;
  faultyPairs: number;
  tokenizer: Tokenizer;
}

function faultModelNote(run: Run): string | undefined {
  const fm = run.settings.attention.faultModel;
  if (!fm || run.settings.attention.backend !== 'FLASHINFER') return undefined;
  return `${fm.summary}. It changed ${run.faultyPairs} (row, head) pair(s) in this run.`;
}

function jsonReport(run: Run) {
  const { settings: s, result, tokenizer: tok } = run;
  const ids = result.tokens.map((t) => t.id);
  return {
    model: run.modelDir,
    emulate: s.emulation,
    attention: {
      backend: s.attention.backend,
      bookkeeping: s.attention.backend === 'FLASHINFER' ? s.attention.bookkeeping : null,
      fault_model: s.attention.backend === 'FLASHINFER' && s.attention.faultModel ? { name: s.attention.faultModel.name, is_a_model: true, summary: s.attention.faultModel.summary, faulty_pairs: run.faultyPairs } : null,
      disable_flashinfer_q_quantization: s.attention.disableQQuantization,
      use_trtllm_attention: s.attention.useTrtllmAttention,
      kernel_calls: Object.fromEntries(run.kernels),
    },
    kv_cache_dtype: s.kvDtype,
    block_size: s.pageSize,
    dtype: s.precision === 'bf16' ? 'bfloat16' : 'float32',
    notes: s.notes,
    prompt_ids: result.promptIds,
    token_ids: ids,
    text: tok.decode(ids),
    finish_reason: result.finishReason,
    logprobs: result.tokens[0]?.top.length
      ? result.tokens.map((t) => ({
          token_id: t.id,
          token: tok.tokenText(t.id),
          logprob: t.logprob,
          top_logprobs: t.top.map((x) => ({ token_id: x.id, token: tok.tokenText(x.id), logprob: x.logprob })),
        }))
      : null,
    seconds: Number(run.seconds.toFixed(4)),
  };
}

function textReport(run: Run, io: CliIO): void {
  const { settings: s, result, tokenizer: tok } = run;
  io.out(tok.decode(result.tokens.map((t) => t.id)) + '\n');
  if (result.tokens[0]?.top.length) {
    io.out(`--- logprobs (top ${result.tokens[0].top.length}) ---\n`);
    result.tokens.forEach((t, i) => {
      const top = t.top.map((x) => `${JSON.stringify(tok.tokenText(x.id))} ${x.logprob.toFixed(4)}`).join(' | ');
      io.out(`${String(i).padStart(4)}  ${JSON.stringify(tok.tokenText(t.id)).padEnd(8)} ${t.logprob.toFixed(4).padStart(9)}   ${top}\n`);
    });
  }
  const backend = s.attention.backend === 'FLASHINFER' ? `FLASHINFER (${s.attention.bookkeeping} bookkeeping${s.attention.disableQQuantization ? ', Q quantization disabled' : ''})` : 'REFERENCE';
  io.err(`engine: ${run.modelDir} · emulate ${s.emulation} · ${backend} · KV ${s.kvDtype}, block ${s.pageSize} · ${s.precision}\n`);
  for (const n of s.notes) io.err(`note: ${n}\n`);
  const fm = faultModelNote(run);
  if (fm) io.err(`note: ${fm}\n`);
  const n = result.tokens.length;
  io.err(`${n} tokens in ${run.seconds.toFixed(3)} s (${(n / Math.max(run.seconds, 1e-9)).toFixed(1)} tok/s incl. prefill), finish: ${result.finishReason}\n`);
}

function parseFlags(flags: string[], io: CliIO) {
  return parseEngineArgv(flags, io.cwd, [...ENGINE_FLAG_SPECS, ...GENERATE_FLAGS], 'faultline engine generate');
}

function readPrompt(args: Map<string, ArgValue>, tok: Tokenizer, vocabSize: number): number[] {
  const text = args.get('prompt');
  const ids = args.get('prompt_ids');
  if (text && ids) throw new UserError('give either --prompt or --prompt-ids, not both', { code: 'E_USAGE', at: ids.at, hint: '--prompt takes text (BOS is added), --prompt-ids takes token ids as given' });
  if (text) {
    return tok.encode(String(text.value), { addBos: true });
  }
  if (!ids) throw new UserError('no prompt', { code: 'E_USAGE', hint: 'pass --prompt TEXT or --prompt-ids 256,72,105' });
  const parts = String(ids.value).split(',').map((p) => p.trim());
  return parts.map((p) => {
    const n = Number(p);
    if (p === '' || !Number.isInteger(n) || n < 0 || n >= vocabSize)
      throw new UserError(`--prompt-ids: "${p}" is not a token id (0..${vocabSize - 1})`, { code: 'E_USAGE', at: ids.at, hint: 'comma-separated integers, e.g. 256,72,105' });
    return n;
  });
}

function intArg(args: Map<string, ArgValue>, dest: string, fallback: number, min: number): number {
  const v = args.get(dest);
  if (!v) return fallback;
  const n = Number(v.value);
  if (!Number.isInteger(n) || n < min) return badValue(dest, v.at, `an integer ≥ ${min}`);
  return n;
}

function floatArg(args: Map<string, ArgValue>, dest: string, fallback: number): number {
  const v = args.get(dest);
  if (!v) return fallback;
  const n = Number(v.value);
  if (!Number.isFinite(n) || n < 0) return badValue(dest, v.at, 'a non-negative number');
  return n;
}

function badValue(dest: string, at: SourceLocation | undefined, what: string): never {
  throw new UserError(`--${dest.replace(/_/g, '-')} must be ${what}`, { code: 'E_USAGE', at, hint: 'see `faultline engine generate --help`' });
}
