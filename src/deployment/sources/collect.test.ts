import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../core/errors.js';
import { collectLaunches } from './collect.js';
import { fixture, memoryFile } from './testing.js';

test('every shared fixture yields exactly the launches SOURCES.md describes (19 is used through 20)', () => {
  const names = [
    '01-shell-vllm-serve-attn-backend-env.sh', '02-shell-api-server-kv-fp8.sh', '03-shell-speculative-config-json.sh',
    '04-shell-legacy-speculative-model.sh', '05-shell-env-prefix-multiline-json.sh', '06-shell-comment-inside-continuation.sh',
    '07-shell-dotted-compilation-config.sh', '08-shell-heredoc-config-yaml.sh', '09-vllm-config-file.yaml',
    '10-shell-serve-config-file.sh', '11-docker-run-gemma4-nvfp4.sh', '12-docker-compose-exec-form.yaml',
    '13-k8s-deployment-gke-gemma3.yaml', '14-k8s-deployment-flow-args.yaml', '15-lws-leader-sh-c.yaml',
    '16-helm-production-stack-v100-tp2.yaml', '17-helm-production-stack-lmcache.yaml', '18-kserve-servingruntime-template.yaml',
    '19-kserve-servingruntime.yaml', '20-kserve-inferenceservice.yaml',
  ];
  const { launches, perFile } = collectLaunches(names.map(fixture));
  assert.equal(launches.length, 19);
  assert.deepEqual([...perFile.values()], names.map(() => 1));
});

test('a YAML syntax error is a UserError at its line and column, with a hint', () => {
  assert.throws(
    () => collectLaunches([memoryFile('bad.yaml', 'apiVersion: v1\nkind: Pod\nspec:\n  containers: [\n    {name: a\n')]),
    (e: unknown) => e instanceof UserError && e.code === 'E_YAML_SYNTAX' && e.at?.file === 'bad.yaml' && e.at.line >= 4 && !!e.hint,
  );
});

test('files and documents without a launch are counted and noted, not errors', () => {
  const { launches, perFile, notes } = collectLaunches([
    memoryFile('empty.sh', 'echo hello\n'),
    memoryFile('other.yaml', 'foo: [1, 2]\n---\napiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n'),
    memoryFile('empty.yaml', ''),
  ]);
  assert.equal(launches.length, 0);
  assert.deepEqual([...perFile], [['empty.sh', 0], ['other.yaml', 0], ['empty.yaml', 0]]);
  assert.deepEqual(notes.map((n) => n.at?.line), [1]);
});
