import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLaunchFiles } from '../load.js';
import { lintDeployments } from '../../hazards/evaluate.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'faultline-shell-runtime-'));
function load(name: string, text: string, more: { set?: Record<string, string> } = {}) {
  writeFileSync(join(dir, name), text);
  return loadLaunchFiles([name], { cwd: dir, ...more }).deployments;
}
const notes = (d: { notes: { value: string }[] }) => d.notes.map((n) => n.value).join('\n');

test('run-time values are unknown values with their location, never parse errors', () => {
  const [d] = load('rt.sh', 'TP=$((NUM_GPUS / 2))\nvllm serve m \\\n  --tensor-parallel-size "$TP" --max-num-seqs $(nproc) $EXTRA_ARGS\n');
  const tp = d.args.get('tensor_parallel_size') as { value: unknown; runtime?: { text: string; names: string[] }; at?: { line: number; column: number } };
  assert.equal(tp.runtime?.text, '$((NUM_GPUS / 2))');
  assert.deepEqual(tp.runtime?.names, ['NUM_GPUS']);
  assert.deepEqual([tp.at?.line, tp.at?.column], [3, 3]);
  assert.equal((d.args.get('max_num_seqs') as { runtime?: { text: string } }).runtime?.text, '$(nproc)');
  assert.match(notes(d), /\$EXTRA_ARGS adds arguments known only when the launch runs; they are not checked \(give them with --set EXTRA_ARGS=/);
  assert.deepEqual(d.flagProblems, []);
});

test('--set supplies them: arithmetic is computed, a spread variable is split into arguments', () => {
  const [d] = load('rt2.sh', 'TP=$((NUM_GPUS / 2))\nvllm serve m --tensor-parallel-size "$TP" $EXTRA_ARGS\n', {
    set: { NUM_GPUS: '8', EXTRA_ARGS: '--kv-cache-dtype fp8 --enforce-eager' },
  });
  assert.equal(d.args.get('tensor_parallel_size')?.value, 4);
  assert.equal(d.args.get('kv_cache_dtype')?.value, 'fp8');
  assert.equal(d.args.get('enforce_eager')?.value, true);
});

test('bash arrays, "${A[@]}", +=, comments inside, process substitution, exec', () => {
  const [d] = load(
    'arr.sh',
    '#!/bin/bash\nCMD=(\n  vllm serve org/m   # model\n  --max-num-seqs 8\n)\nCMD+=(--kv-cache-dtype "fp8")\nwhile read -r l; do echo "$l"; done < <(nvidia-smi -L)\nexec "${CMD[@]}"\n',
  );
  assert.equal(d.model?.value, 'org/m');
  assert.equal(d.args.get('max_num_seqs')?.value, 8);
  assert.deepEqual(d.args.get('max_num_seqs')?.at, { file: 'arr.sh', line: 4, column: 3 });
  assert.equal(d.args.get('kv_cache_dtype')?.value, 'fp8');
});

test('functions defined and called, with their arguments as "$@"; bash -c SCRIPT -- ARGS', () => {
  const [fn] = load('fn.sh', 'start_server() {\n  local port=$1\n  shift\n  vllm serve org/m --port "$port" "$@"\n}\nstart_server 9000 --enforce-eager\n');
  assert.equal(fn.args.get('port')?.value, 9000);
  assert.equal(fn.args.get('enforce_eager')?.value, true);
  assert.doesNotMatch(notes(fn), /stray positional/, 'shift drops $1 from "$@"');
  const [c] = load('c.sh', `bash -c 'exec vllm serve "$@"' -- org/m --max-num-seqs 4\n`);
  assert.equal(c.model?.value, 'org/m');
  assert.equal(c.args.get('max_num_seqs')?.value, 4);
  assert.deepEqual(c.args.get('max_num_seqs')?.at, { file: 'c.sh', line: 1, column: 41 });
});

test('a hazard condition that depends on a run-time value is unknown, naming what settles it', () => {
  const text = 'exec vllm serve org/m --attention-backend FLASHINFER --kv-cache-dtype "$KV" --speculative-config \'{"method": "mtp", "num_speculative_tokens": 7}\' --attention-config \'{"disable_flashinfer_q_quantization": true}\'\n';
  const [d] = load('hz.sh', text);
  d.gpu = { value: { sm: 100, name: 'NVIDIA B200' } };
  d.modelFacts = { source: 'x', layers: ['sliding', 'full'], window: 1024, notes: [] };
  const f = lintDeployments([d]).find((x) => x.hazard.id === 'FL001');
  assert.equal(f?.possibly, true);
  const kv = f?.conditions.find((c) => c.name === 'fp8-kv-cache');
  assert.equal(kv?.status, 'unknown');
  assert.match(kv?.detail ?? '', /depends on --kv-cache-dtype, whose value \$KV is known only when the launch runs \(settle it with --set KV=…\)/);
  const [clean] = load('hz2.sh', text, { set: { KV: 'bfloat16' } });
  clean.gpu = d.gpu;
  clean.modelFacts = d.modelFacts;
  assert.equal(lintDeployments([clean]).find((x) => x.hazard.id === 'FL001'), undefined);
});

test('an empty default (${X:-}, ${X-}) is the caller’s value: known only at run time, never an empty word', () => {
  const [d] = load(
    'empty.sh',
    'vllm serve m --data-parallel-start-rank ${START_RANK:-} --max-model-len ${LEN-} --port "${PORT:-}"\n',
  );
  for (const dest of ['data_parallel_start_rank', 'max_model_len', 'port'])
    assert.ok((d.args.get(dest) as { runtime?: unknown }).runtime, dest);
  assert.match(
    notes(d),
    /START_RANK is not set in empty\.sh; its default is empty, so its value is the caller's/,
  );
  const [set] = load('empty2.sh', 'vllm serve m --data-parallel-start-rank ${START_RANK:-}\n', {
    set: { START_RANK: '2' },
  });
  assert.equal(set.args.get('data_parallel_start_rank')?.value, 2);
});

test('positional parameters: unknown values, or their default when one is written', () => {
  const [d] = load(
    'pos.sh',
    'vllm serve "$1" --kv-cache-dtype $2 --tensor-parallel-size ${3} --max-model-len "${4:-4096}"\n',
  );
  assert.equal(d.model?.value, '$1');
  assert.equal((d.args.get('kv_cache_dtype') as { runtime?: { text: string } }).runtime?.text, '$2');
  assert.equal((d.args.get('tensor_parallel_size') as { runtime?: { text: string } }).runtime?.text, '${3}');
  assert.equal(d.args.get('max_model_len')?.value, 4096);
  assert.deepEqual(d.flagProblems, []);
});

test('local / declare / readonly arrays keep their elements; a variable set from run-time parts splits into its words', () => {
  const [d] = load(
    'decl.sh',
    'run() {\n  local -a extra=(--enforce-eager --max-num-seqs 8)\n  readonly opts=(--kv-cache-dtype fp8)\n  declare more=(--max-model-len 1024)\n  COMMON="--tensor-parallel-size $TP --block-size 16"\n  vllm serve m "${extra[@]}" "${opts[@]}" "${more[@]}" $COMMON\n}\nrun\n',
  );
  assert.equal(d.args.get('enforce_eager')?.value, true);
  assert.equal(d.args.get('max_num_seqs')?.value, 8);
  assert.equal(d.args.get('kv_cache_dtype')?.value, 'fp8');
  assert.equal(d.args.get('max_model_len')?.value, 1024);
  assert.equal(d.args.get('block_size')?.value, 16);
  assert.equal((d.args.get('tensor_parallel_size') as { runtime?: { text: string } }).runtime?.text, '$TP');
  assert.doesNotMatch(notes(d), /stray positional/);
});

test('a run-time value inside a JSON flag leaves its other keys known', () => {
  const [d] = load(
    'spec.sh',
    `vllm serve m --speculative-config '{"method": "eagle3", "model": "'$DRAFT'", "num_speculative_tokens": 3}'\n`,
  );
  const spec = d.args.get('speculative_config') as {
    value: Record<string, unknown>;
    runtime?: unknown;
    runtimeKeys?: Record<string, { text: string }>;
  };
  assert.equal(spec.runtime, undefined);
  assert.equal(spec.value.method, 'eagle3');
  assert.equal(spec.value.num_speculative_tokens, 3);
  assert.equal(spec.runtimeKeys?.model.text, '$DRAFT');
  const fired = lintDeployments([d]).map((f) => f.hazard.id);
  assert.ok(
    !fired.includes('FL014'),
    'an eagle3 drafter is not ngram: the ngram hazard does not depend on the unknown key',
  );
});

test('a condition on a run-time key of a JSON flag is unknown, naming the key and what settles it', () => {
  const [d] = load(
    'subkey.sh',
    `vllm serve m --speculative-config '{"method": "'$METHOD'", "num_speculative_tokens": 3}'\n`,
  );
  const f = lintDeployments([d]).find((x) => x.hazard.id === 'FL014');
  assert.equal(f?.possibly, true, 'an ngram drafter is one value $METHOD could take');
  const method = f?.conditions.find((c) => /speculative-config's method/.test(c.detail));
  assert.match(
    method?.detail ?? '',
    /whose value \$METHOD is known only when the launch runs \(settle it with --set METHOD=…\)/,
  );
  const [eagle] = load(
    'subkey2.sh',
    `vllm serve m --speculative-config '{"method": "'$METHOD'", "num_speculative_tokens": 3}'\n`,
    { set: { METHOD: 'eagle3' } },
  );
  assert.equal(
    lintDeployments([eagle]).find((x) => x.hazard.id === 'FL014'),
    undefined,
  );
});
