import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findModelConfig, hubCacheDir } from './hf-cache.js';

const root = mkdtempSync(join(tmpdir(), 'faultline-hf-'));
const hub = join(root, 'hub');
function snapshot(repo: string, rev: string) {
  const dir = join(hub, `models--${repo.replace('/', '--')}`, 'snapshots', rev);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), '{}');
  return join(dir, 'config.json');
}

test('hub cache dir: HF_HUB_CACHE, then HF_HOME/hub, then XDG_CACHE_HOME, then ~/.cache', () => {
  assert.equal(hubCacheDir({ HF_HUB_CACHE: '/a', HF_HOME: '/b' }), '/a');
  assert.equal(hubCacheDir({ HF_HOME: '/b' }), join('/b', 'hub'));
  assert.equal(hubCacheDir({ XDG_CACHE_HOME: '/x' }), join('/x', 'huggingface', 'hub'));
  assert.equal(hubCacheDir({ HOME: '/h' }), join('/h', '.cache', 'huggingface', 'hub'));
});

test('refs/main picks the snapshot; a requested revision wins; several snapshots without a ref are not guessed', () => {
  const env = { HF_HUB_CACHE: hub };
  const a = snapshot('org/m', 'aaa111');
  const b = snapshot('org/m', 'bbb222');
  assert.match(findModelConfig('org/m', { env, cwd: root }).how, /2 cached snapshots and no refs\/main/);
  mkdirSync(join(hub, 'models--org--m', 'refs'), { recursive: true });
  writeFileSync(join(hub, 'models--org--m', 'refs', 'main'), 'bbb222\n');
  assert.equal(findModelConfig('org/m', { env, cwd: root }).path, b);
  assert.equal(findModelConfig('org/m', { env, cwd: root, revision: 'aaa111' }).path, a);
  assert.equal(findModelConfig('org/m', { env, cwd: root, revision: 'zzz' }).path, undefined);
  const only = snapshot('org/single', 'ccc333');
  assert.equal(findModelConfig('org/single', { env, cwd: root }).path, only);
});

test('local directories are used as is; unknown models say why', () => {
  const dir = join(root, 'local-model');
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.json'), '{}');
  assert.equal(
    findModelConfig('local-model', { env: { HF_HUB_CACHE: hub }, cwd: root }).path,
    join(dir, 'config.json'),
  );
  assert.match(
    findModelConfig('org/absent', { env: { HF_HUB_CACHE: hub }, cwd: root }).how,
    /not in the Hugging Face cache/,
  );
  assert.match(
    findModelConfig('not a model', { env: {}, cwd: root }).how,
    /neither a local directory nor a hub model id/,
  );
});
