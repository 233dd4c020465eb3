/**
 * Property tests: whatever the input, the sources either return launches or throw a UserError —
 * never another exception (a TypeError here would reach the user as a crash).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { isUserError } from '../../core/errors.js';
import { assembleDeployment } from './assemble.js';
import { collectLaunches } from './collect.js';
import { memoryFile } from './testing.js';

function onlyUserErrors(run: () => unknown): void {
  try {
    run();
  } catch (e) {
    if (!isUserError(e)) throw e;
    assert.ok(e.at === undefined || (e.at.line >= 1 && e.at.column >= 1), 'locations are 1-based');
  }
}

/** Shell-ish text built from the characters and words that matter to the lexer. */
const shellText = fc
  .array(
    fc.constantFrom(
      'vllm', 'serve', 'python3', '-m', 'vllm.entrypoints.openai.api_server', 'docker', 'run', 'bash', '-c', 'export', 'X=1',
      '$X', '${X:-d}', '${#X}', '$(', ')', '`', "'", '"', '\\', '\n', ' ', '\\\n', '#', ';', '&&', '|', '&', '<<', 'EOF',
      '>', '2>&1', '{', '}', 'if', 'then', 'fi', 'env', '-i', '-e', 'A=B', 'cat', 'x.yaml', '--config', '$@', '=', '(', '\t',
      'llama-server', '-fa', '-c', '--ctx-size=1', 'LLAMA_ARG_CTX_SIZE=x', 'ollama', 'OLLAMA_NUM_PARALLEL=2', 'ghcr.io/ggml-org/llama.cpp:server',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

test('shell: random token soup → launches or a UserError', () => {
  fc.assert(
    fc.property(shellText, (text) => onlyUserErrors(() => collectLaunches([memoryFile('f.sh', text)]))),
    { numRuns: 1500 },
  );
});

test('shell and YAML: random unicode strings → launches or a UserError', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.boolean(), (text, asYaml) =>
      onlyUserErrors(() => collectLaunches([memoryFile(asYaml ? 'f.yaml' : 'f.sh', text)])),
    ),
    { numRuns: 800 },
  );
});

/** YAML values of any shape, with the keys the sources look for sprinkled in. */
const key = fc.constantFrom(
  'apiVersion', 'kind', 'metadata', 'name', 'spec', 'template', 'containers', 'command', 'args', 'env', 'value', 'valueFrom',
  'image', 'nodeSelector', 'affinity', 'services', 'entrypoint', 'environment', 'servingEngineSpec', 'modelSpec', 'modelURL',
  'vllmConfig', 'extraArgs', 'lmcacheConfig', 'enabled', 'predictor', 'model', 'runtime', 'storageUri', 'objects', 'items',
  'nvidia.com/gpu.product', 'kv-cache-dtype', 'tensor-parallel-size', 'deploy', 'parallelism', 'uri',
);
const scalar = fc.oneof(
  fc.constantFrom('vllm serve m --x 1', 'sh', '-c', 'Deployment', 'InferenceService', 'ServingRuntime', 'LLMInferenceService', 'Template', 'List', 'v1', 'vllm/vllm-openai', "'", '$(X)', 'hf://a/b', 'VLLM_ADDITIONAL_ARGS'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('tree'), { maxLength: 4 }), fc.dictionary(key, tie('tree'), { maxKeys: 5 })),
}));

test('YAML sources: random documents with manifest-like keys → launches or a UserError', () => {
  fc.assert(
    fc.property(fc.array(tree, { minLength: 1, maxLength: 3 }), (docs) => {
      const text = docs.map((d) => stringify(d)).join('---\n');
      onlyUserErrors(() => collectLaunches([memoryFile('m.yaml', text)]));
    }),
    { numRuns: 500 },
  );
});

/** Text built from what the Dockerfile, systemd, Modelfile, Nix and llama-swap readers look for. */
const otherText = fc
  .array(
    fc.constantFrom(
      'FROM', 'x', ' AS ', 'b', 'ENV', 'ARG', 'CMD', 'ENTRYPOINT', '["llama-server", "-m", "a"]', '[', ']', '"', "'", '\\', '\n', ' ', '=', '$', '${A:-b}',
      '[Service]', '[Unit]', 'ExecStart=', 'Environment=', 'EnvironmentFile=', 'OLLAMA_CONTEXT_LENGTH=1', 'llama-server -c 1', 'ollama serve',
      'PARAMETER', 'num_ctx', '"""', '#', '{', '}', ';', 'services.ollama.enable = true;', 'services.llama-cpp', 'lib.mkIf', ':', '...', "''",
      'models:', '  a:', '    cmd: |', '      llama-server', '${PORT}', 'macros:', '-', ',',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

test('Dockerfiles, systemd units, Modelfiles, Nix modules, llama-swap configs: random text → launches or a UserError', () => {
  const names = ['Dockerfile', 'x.service', 'override.conf', 'Modelfile', 'm.nix', 'llama-swap.yaml'];
  fc.assert(
    fc.property(otherText, fc.constantFrom(...names), (text, name) =>
      onlyUserErrors(() => collectLaunches([memoryFile(name, name === 'override.conf' ? `[Service]\n${text}` : text)]).launches.map((l) => assembleDeployment(l, { cwd: '/work' }))),
    ),
    { numRuns: 1500 },
  );
});
