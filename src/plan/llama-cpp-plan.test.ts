/**
 * `faultline plan` on llama-server launches (issue 32, item 6): the factors a launch's features
 * give, the plain reference, the options mapped to the llama.cpp runtime (what it lacks named in
 * the header with why), the launch's own llama-server for --target llama.cpp, and every real
 * fixture of test/fixtures/wild-llama-cpp either planned as a valid matrix plan or refused with a
 * reason (Ollama; a launch at every plain setting; run-time values its own server would get as
 * written).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { UserError } from '../core/errors.js';
import { loadDeployments } from '../deployment/load.js';
import { parsePlan } from '../matrix/plan-load.js';
import { planTextFromFiles } from './plan-from-file.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const wild = 'test/fixtures/wild-llama-cpp/';

function tempLaunch(t: { after: (f: () => void) => void }, name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-llama-plan-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const levelsOf = (plan: ReturnType<typeof parsePlan>, f: string) =>
  plan.space.levels[plan.space.names.indexOf(f)];

test('renfield (q8_0 K and V, flash attention, 4 slots): engine target by default, f16 / off / one sequence as the reference', () => {
  const text = planTextFromFiles({ files: [`${wild}renfield--k8s_llama-server.yaml`], cwd: root });
  const plan = parsePlan('plan.yaml', text);
  assert.deepEqual(plan.space.names, [
    'cache_type_k',
    'cache_type_v',
    'flash_attn',
    'parallel',
    'cache_prompt',
  ]);
  assert.deepEqual(levelsOf(plan, 'cache_type_k'), ['f16', 'q8_0']);
  assert.deepEqual(levelsOf(plan, 'parallel'), ['1', '4']);
  assert.deepEqual(
    plan.baseline,
    plan.space.names.map(() => 0),
  );
  const data = parse(text);
  assert.deepEqual(data.launch.argv.slice(0, 3), [
    'node',
    '{faultline_root}/examples/llama-cpp/serve-tiny-swa.mjs',
    '{cell_dir}',
  ]);
  assert.ok(data.launch.argv.includes('@tiny-swa.f32.gguf'));
  assert.equal(data.factors.parallel.levels['1'].argv.join(' '), '--parallel 1');
  // llama.cpp refuses a quantized V without flash attention
  assert.deepEqual(data.constraints, [
    {
      if: { cache_type_v: 'q8_0' },
      then: { flash_attn: 'on' },
      why: 'llama.cpp refuses a quantized V cache without flash attention',
    },
  ]);
  // what the runtime lacks is left out, each with why
  assert.match(text, /^# {3}-ngl 99: the llama\.cpp runtime runs on the CPU$/m);
  assert.match(text, /^# {3}--tensor-split 16,16: not an option of the llama\.cpp runtime$/m);
  assert.match(text, /^# {3}-c 65536: sized for the launch's model/m);
  assert.match(text, /docs\/findings\/004/);
  assert.equal(data.probe.suite, 'window-crossing');
  assert.equal(data.probe.prompt_text, '{faultline_root}/examples/llama-cpp/prose.txt');
  // deterministic
  assert.equal(planTextFromFiles({ files: [`${wild}renfield--k8s_llama-server.yaml`], cwd: root }), text);
});

test('a launch at one slot still gets --parallel 1 on the engine target (the runtime defaults to 4)', (t) => {
  const file = tempLaunch(
    t,
    'serve.sh',
    'llama-server -m /m/x.gguf -np 1 -fa off -ctk q4_0 --batch-size 256 --swa-full --context-shift\n',
  );
  const data = parse(planTextFromFiles({ files: [file], cwd: root }));
  assert.deepEqual(Object.keys(data.factors), [
    'cache_type_k',
    'swa_full',
    'context_shift',
    'cache_prompt',
    'batch_size',
  ]);
  const argv: string[] = data.launch.argv;
  assert.equal(argv[argv.indexOf('--parallel') + 1], '1');
  assert.equal(data.factors.swa_full.levels.off, null);
  assert.deepEqual(data.factors.swa_full.levels.on.argv, ['--swa-full']);
  assert.deepEqual(data.factors.context_shift.levels.off.argv, ['--no-context-shift']);
  assert.equal(data.factors.batch_size.levels.default, null);
  assert.deepEqual(data.factors.batch_size.levels['256'].argv, ['--batch-size', '256']);
  assert.deepEqual(data.reference.levels, {
    cache_type_k: 'f16',
    swa_full: 'off',
    context_shift: 'off',
    cache_prompt: 'off',
    batch_size: 'default',
  });
});

test("speculative decoding: a draft model becomes tiny-swa at Q8_0 on the engine target, the launch's own draft options on llama.cpp", () => {
  const file = `${wild}llama-swap--docs_examples_aider-qwq-coder_llama-swap.yaml`;
  const engine = parse(planTextFromFiles({ files: [file], cwd: root, launch: 1 }));
  assert.deepEqual(engine.factors.speculative.levels.draft.argv, [
    '--model-draft',
    '@tiny-swa.q8_0.gguf',
    '--draft-max',
    '16',
  ]);
  const own = planTextFromFiles({ files: [file], cwd: root, launch: 1, target: 'llama.cpp' });
  const data = parse(own);
  parsePlan('plan.yaml', own);
  assert.equal(data.launch.argv[0], '/path/to/llama-server');
  assert.ok(
    data.launch.argv.includes('/path/to/Qwen2.5-Coder-32B-Instruct-Q4_K_M.gguf'),
    "the launch's model",
  );
  assert.deepEqual(data.launch.argv.slice(-4), ['--host', '127.0.0.1', '--port', '{port}']);
  assert.ok(
    !data.launch.argv.includes('--cache-type-k') && !data.launch.argv.includes('-ctk'),
    'the factors own the cache types',
  );
  const draft: string[] = data.factors.speculative.levels.draft.argv;
  assert.ok(draft.includes('--model-draft') || draft.includes('-md'));
  assert.ok(draft.includes('/path/to/Qwen2.5-Coder-1.5B-Instruct-Q8_0.gguf'));
  assert.equal(data.factors.speculative.levels.none, null);
  // the slots default (auto) stays as the launch has it: no flag
  assert.equal(data.factors.parallel.levels.auto, null);
  assert.equal(data.probe.suite, 'short');
  assert.equal(data.launch.env.CUDA_VISIBLE_DEVICES, '0');
});

test('a spec type the runtime lacks is left out with why; ngram-simple is a level', (t) => {
  const mtp = parse(
    planTextFromFiles({ files: [`${wild}Qwen3.6-35B-A3B-MTP-L4--start-llama.sh`], cwd: root }),
  );
  assert.equal(mtp.factors.speculative, undefined);
  const lookup = tempLaunch(
    t,
    'serve.sh',
    'llama-server -m /m/x.gguf -np 1 --no-cache-prompt --spec-type ngram-simple --spec-ngram-simple-size-n 4\n',
  );
  const data = parse(planTextFromFiles({ files: [lookup], cwd: root }));
  assert.deepEqual(data.factors.speculative.levels.ngram.argv, [
    '--spec-type',
    'ngram-simple',
    '--spec-ngram-simple-size-n',
    '4',
  ]);
  const text = planTextFromFiles({ files: [`${wild}Qwen3.6-35B-A3B-MTP-L4--start-llama.sh`], cwd: root });
  assert.match(
    text,
    /--spec-type draft-mtp: the llama\.cpp runtime has only ngram-simple prompt lookup and a draft model/,
  );
});

test("refusals say why: Ollama, nothing to vary, --target vllm, run-time values for the launch's own server", (t) => {
  const usage = (re: RegExp) => (e: unknown) =>
    e instanceof UserError && re.test(`${e.message} ${e.hint ?? ''}`);
  assert.throws(
    () => planTextFromFiles({ files: [`${wild}renfield--k8s_ollama.yaml`], cwd: root }),
    usage(/runs Ollama.*not llama-server/),
  );
  const plain = tempLaunch(t, 'serve.sh', 'llama-server -m /m/x.gguf -np 1 -fa off --no-cache-prompt\n');
  assert.throws(
    () => planTextFromFiles({ files: [plain], cwd: root }),
    (e: unknown) => e instanceof UserError && e.code === 'E_PLAN_NOTHING',
  );
  assert.throws(
    () => planTextFromFiles({ files: [`${wild}renfield--k8s_llama-server.yaml`], cwd: root, target: 'vllm' }),
    usage(/--target vllm: this launch runs llama\.cpp/),
  );
  assert.throws(
    () => planTextFromFiles({ files: ['examples/seed-b200/serve.sh'], cwd: root, target: 'llama.cpp' }),
    usage(/--target llama\.cpp is for llama-server launches/),
  );
  assert.throws(
    () =>
      planTextFromFiles({
        files: [`${wild}fw-desktop-llm--llama-swap.yaml`],
        cwd: root,
        target: 'llama.cpp',
      }),
    usage(/\$\{HOME\}.*known only when it runs.*--target engine/),
  );
});

test('every llama-server launch of the wild corpus gives a valid plan for the engine target (or nothing to vary)', () => {
  let planned = 0;
  for (const f of readdirSync(join(root, wild))) {
    if (f === 'SOURCES.md' || f === 'expectations.json') continue;
    const ds = loadDeployments([`${wild}${f}`], { cwd: root });
    ds.forEach((d, i) => {
      if (d.engine !== 'llama.cpp') return;
      try {
        parsePlan(`${f} #${i + 1}`, planTextFromFiles({ files: [`${wild}${f}`], cwd: root, launch: i + 1 }));
        planned++;
      } catch (e) {
        assert.ok(
          e instanceof UserError && e.code === 'E_PLAN_NOTHING',
          `${f} #${i + 1}: ${(e as Error).message}`,
        );
      }
    });
  }
  assert.ok(planned >= 20, `planned ${planned}`);
});
