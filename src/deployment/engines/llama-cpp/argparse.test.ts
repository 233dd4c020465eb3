import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from '../../argv-token.js';
import type { Located } from '../../../core/located.js';
import { parseLlamaServerArgv, stof, stoi } from './argparse.js';
import { servingFacts } from './facts.js';
import { loadTable, parseLlamaCppVersion, tableFor } from './flag-table.js';
import { llamaCppImage, llamaServerAt } from './command.js';

const table = loadTable('v0.4.0');

function parse(line: string, env: Record<string, string> = {}, authoritative = false) {
  const envMap = new Map<string, Located<string>>(Object.entries(env).map(([k, v]) => [k, { value: v, at: { file: '<env>', line: 1, column: 1 } }]));
  return parseLlamaServerArgv(tokensFromArgv(line.split(' ').filter(Boolean)), { table, authoritative, env: envMap });
}

const value = (p: ReturnType<typeof parse>, key: string) => p.args.get(key)?.value;

test('short and long names, switches, negated forms, last occurrence wins', () => {
  const p = parse('-m a.gguf --ctx-size 8192 -np 4 --swa-full --no-context-shift --cache-prompt -c 4096');
  assert.equal(value(p, 'model'), 'a.gguf');
  assert.equal(value(p, 'ctx_size'), 4096);
  assert.equal(p.args.get('ctx_size')?.option, '-c');
  assert.equal(value(p, 'parallel'), 4);
  assert.equal(value(p, 'swa_full'), true);
  assert.equal(value(p, 'context_shift'), false);
  assert.equal(value(p, 'cache_prompt'), true);
  assert.deepEqual(p.flagProblems, []);
  assert.ok(p.notes.some((n) => /-c is given again \(first as --ctx-size\)/.test(n.value)));
});

test('--a_b is read as --a-b; a value is the next word whatever it looks like', () => {
  const p = parse('--ctx_size 2048 -ngl -1 --keep -1');
  assert.equal(value(p, 'ctx_size'), 2048);
  assert.equal(value(p, 'gpu_layers'), -1);
  assert.equal(value(p, 'keep'), -1);
  assert.ok(p.notes.some((n) => /--ctx_size is read as --ctx-size/.test(n.value)));
});

test('flash attention takes the handler’s words: -fa 1 is on, -fa -1 auto; a word outside them is a choice problem', () => {
  assert.equal(servingFacts(parse('-fa 1').args, table).flashAttn?.value, 'on');
  assert.equal(servingFacts(parse('-fa disabled').args, table).flashAttn?.value, 'off');
  assert.equal(servingFacts(parse('-fa -1').args, table).flashAttn?.value, 'auto');
  const bad = parse('-fa yes');
  assert.equal(bad.flagProblems[0].kind, 'choice');
  assert.equal(bad.flagProblems[0].definite, undefined, 'possible when the build is not the table’s');
  assert.equal(parse('-fa yes', {}, true).flagProblems[0].definite, true);
});

test('a bare -fa (older builds: a switch) followed by another flag, or last, reads as on with a note, not a problem', () => {
  for (const line of ['-fa -ub 1024', '-ub 1024 -fa', '--flash-attn --metrics']) {
    const p = parse(line);
    assert.equal(servingFacts(p.args, table).flashAttn?.value, 'on', line);
    assert.deepEqual(p.flagProblems, [], line);
    assert.ok(p.notes.some((n) => /without a value: builds from before/.test(n.value)), line);
  }
  assert.equal(value(parse('-fa -ub 1024'), 'ubatch_size'), 1024, 'the next flag is still read');
  // against the table's own release the bare form is refused
  assert.equal(parse('-fa -ub 1024', {}, true).flagProblems[0].kind, 'value');
});

test('--name=value is not split by llama-server: a flag problem, and the value is still read', () => {
  const p = parse('--ctx-size=4096');
  assert.equal(value(p, 'ctx_size'), 4096);
  assert.equal(p.flagProblems[0].kind, 'unknown');
  assert.equal(p.flagProblems[0].option, '--ctx-size=4096');
  assert.equal(p.flagProblems[0].suggestion, '--ctx-size 4096');
});

test('unknown flags keep their value; a stray positional is refused in every build; removed flags are problems read as given', () => {
  const p = parse('--ctx-size-draft 16000 -m a.gguf b.gguf --draft-max 16');
  assert.deepEqual(
    p.flagProblems.map((x) => [x.kind, x.option, x.definite ?? false]),
    [
      ['unknown', '--ctx-size-draft', false],
      ['unknown', 'b.gguf', true],
      ['removed', '--draft-max', false],
    ],
  );
  assert.equal(value(p, 'ctx_size_draft'), '16000');
  assert.equal(value(p, 'model'), 'a.gguf');
  assert.equal(servingFacts(p.args, table).draftMax?.value, 16);
  assert.match(p.flagProblems[2].suggestion ?? '', /--spec-draft-n-max/);
});

test('an option of other tools only (llama-cli) is unknown to llama-server', () => {
  const p = parse('-m a.gguf -cnv');
  assert.equal(p.flagProblems[0]?.option, '-cnv');
});

test('ints go through std::stoi; floats through std::stof; a missing value stops the parser', () => {
  assert.equal(stoi('12abc'), 12);
  assert.equal(stoi(' -3'), -3);
  assert.equal(stoi('abc'), undefined);
  assert.equal(stoi('99999999999'), undefined);
  assert.equal(stof('0.9x'), 0.9);
  assert.equal(stof('x'), undefined);
  const p = parse('-c 8k');
  assert.equal(value(p, 'ctx_size'), 8);
  assert.ok(p.notes.some((n) => /read as 8/.test(n.value)));
  assert.equal(parse('-c abc').flagProblems[0].kind, 'value');
  const missing = parse('-m');
  assert.equal(missing.flagProblems[0].kind, 'value');
  assert.equal(missing.flagProblems[0].definite, true);
});

test('choices: KV cache types, the comma list of --spec-type, the default of a help-listed choice', () => {
  assert.deepEqual(parse('-ctk q8_0 -ctv q4_0 --reasoning-format auto').flagProblems, []);
  assert.equal(parse('-ctk q3_k').flagProblems[0].kind, 'choice');
  const spec = parse('--spec-type draft-mtp,ngram-mod');
  assert.deepEqual(value(spec, 'spec_type'), ['draft-mtp', 'ngram-mod']);
  assert.equal(parse('--spec-type eagle').flagProblems[0].kind, 'choice');
});

test('LLAMA_ARG_* first, the command line wins; a switch variable needs a truthy value; LLAMA_ARG_NO_* turns it off', () => {
  const p = parse('-c 4096', {
    LLAMA_ARG_CTX_SIZE: '2048',
    LLAMA_ARG_N_PARALLEL: '3',
    LLAMA_ARG_SWA_FULL: 'no',
    LLAMA_ARG_NO_CONTEXT_SHIFT: '1',
    LLAMA_ARG_FLASH_ATTN: 'on',
    LLAMA_ARG_BOGUS: '1',
  });
  const facts = servingFacts(p.args, table);
  assert.equal(facts.ctxSize?.value, 4096);
  assert.equal(facts.ctxSize?.from, 'flag');
  assert.deepEqual(facts.ctxSize?.overridden, { value: 2048, option: 'LLAMA_ARG_CTX_SIZE', from: 'env', at: { file: '<env>', line: 1, column: 1 } });
  assert.equal(facts.parallel?.value, 3);
  assert.equal(facts.parallel?.option, 'LLAMA_ARG_N_PARALLEL');
  assert.equal(facts.swaFull?.from, 'default');
  assert.equal(facts.contextShift?.value, false);
  assert.equal(facts.flashAttn?.value, 'on');
  assert.ok(p.notes.some((n) => /LLAMA_ARG_BOGUS: not a variable llama-server reads/.test(n.value)));
  assert.ok(p.notes.some((n) => /LLAMA_ARG_SWA_FULL=no: .*ignored/.test(n.value)));
  assert.equal(parse('', { LLAMA_ARG_CONT_BATCHING: 'maybe' }).flagProblems[0].kind, 'value');
});

test('run-time values are kept as written, not checked', () => {
  const p = parseLlamaServerArgv(
    [{ text: '-c' }, { text: '$CTX', runtime: { text: '$CTX', why: 'unset', names: ['CTX'] } }, { text: '-ctk' }, { text: '${KV}' }],
    { table, authoritative: true },
  );
  assert.deepEqual(p.flagProblems, []);
  assert.equal(servingFacts(p.args, table).ctxSize?.value, '$CTX');
  assert.ok(servingFacts(p.args, table).cacheTypeK?.runtime);
});

test('facts the launch does not set are the table’s defaults, marked so', () => {
  const f = servingFacts(parse('-m a.gguf').args, table);
  assert.equal(f.model?.value, 'a.gguf');
  assert.deepEqual(
    [f.ctxSize?.value, f.parallel?.value, f.flashAttn?.value, f.cacheTypeK?.value, f.contextShift?.value, f.cachePrompt?.value, f.nGpuLayers?.value],
    [0, -1, 'auto', 'f16', false, true, 'auto'],
  );
  assert.ok([f.ctxSize, f.flashAttn, f.contextShift].every((x) => x?.from === 'default'));
});

test('versions: builds and release tags; only a table’s own tag is authoritative', () => {
  assert.deepEqual(parseLlamaCppVersion('b6123'), { build: 6123 });
  assert.deepEqual(parseLlamaCppVersion('6123'), { build: 6123 });
  assert.deepEqual(parseLlamaCppVersion('v0.4.0'), { tag: 'v0.4.0' });
  assert.equal(parseLlamaCppVersion('latest'), undefined);
  assert.equal(tableFor({ tag: 'v0.4.0' }).authoritative, true);
  assert.equal(tableFor({ build: 6123 }).authoritative, false);
  assert.equal(tableFor(undefined).authoritative, false);
});

test('images: the build a tag names; server, full and light variants; the older ggerganov organisation', () => {
  assert.deepEqual(llamaCppImage('ghcr.io/ggml-org/llama.cpp:server-b6123'), { variant: 'server', tag: 'server-b6123', build: 6123 });
  assert.deepEqual(llamaCppImage('ghcr.io/ggml-org/llama.cpp:server-cuda-b7001'), { variant: 'server', tag: 'server-cuda-b7001', build: 7001 });
  assert.deepEqual(llamaCppImage('ghcr.io/ggml-org/llama.cpp:server'), { variant: 'server', tag: 'server' });
  assert.equal(llamaCppImage('ghcr.io/ggerganov/llama.cpp:full-cuda')?.variant, 'full');
  assert.equal(llamaCppImage('ghcr.io/ggml-org/llama.cpp:light')?.variant, 'light');
  assert.equal(llamaCppImage('vllm/vllm-openai:v0.11.0'), undefined);
});

test('the older `server` binary only where unambiguous', () => {
  const at = (line: string) => llamaServerAt(line.split(' ').map((text) => ({ text })), 0);
  assert.equal(at('/opt/llama.cpp/build/bin/llama-server -m x'), 'llama-server');
  assert.equal(at('./build/bin/server -m models/7B/q4_0.gguf -c 2048'), 'server');
  assert.equal(at('./server -m model.gguf'), 'server');
  assert.equal(at('./server --port 8080'), undefined, 'no llama model: any server');
  assert.equal(at('server -m model.gguf'), undefined, 'a bare name: any program called server');
  assert.equal(at('/usr/bin/server -m x.gguf'), 'server');
  assert.equal(at('./node_modules/.bin/server -m a.bin'), undefined);
});

test('any words and environment: the parser never throws, and every problem is located', async () => {
  const fc = (await import('fast-check')).default;
  const word = fc.oneof(
    fc.constantFrom('-fa', '-c', '--ctx_size', '--ctx-size=8', '-ngl', 'auto', '-1', 'on', '1', 'x.gguf', '--draft-max', '--spec-type', 'draft-mtp,', '-ctk', 'q8_0', '--no-context-shift', '-', '--', '$X', '--control-vector-layer-range'),
    fc.string({ maxLength: 8 }),
  );
  const envName = fc.constantFrom('LLAMA_ARG_CTX_SIZE', 'LLAMA_ARG_FLASH_ATTN', 'LLAMA_ARG_NO_CONTEXT_SHIFT', 'LLAMA_ARG_SWA_FULL', 'LLAMA_ARG_DRAFT_MAX', 'LLAMA_ARG_X', 'HF_TOKEN');
  fc.assert(
    fc.property(fc.array(word, { maxLength: 12 }), fc.dictionary(envName, fc.string({ maxLength: 6 })), fc.boolean(), (words, env, authoritative) => {
      const p = parse(words.join(' '), env, authoritative);
      for (const x of p.flagProblems) assert.ok(x.at, `${x.option} is located`);
      servingFacts(p.args, table);
    }),
    { numRuns: 800 },
  );
});
