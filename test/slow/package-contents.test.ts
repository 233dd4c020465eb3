/**
 * What an installed faultline holds: `npm pack` (dry run, no scripts) must list every weights shard
 * that a committed model's safetensors index names, and every model directory an example plan
 * launches. npm leaves symlinks out of a package, so a shard shared by a symlink would be missing
 * after install and `faultline matrix examples/scale-defect/matrix.yaml` would fail there. Test
 * helpers are left out of the build (tsconfig.build.json), so the package ships none of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from '../helpers/cli.js';

async function packedFiles(): Promise<Set<string>> {
  const { stdout } = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot });
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return new Set(pack.files.map((f) => f.path));
}

test('the package holds every shard of every committed model and every model an example launches', async () => {
  const files = await packedFiles();
  let shards = 0;
  for (const model of readdirSync(join(repoRoot, 'models'))) {
    const index = JSON.parse(readFileSync(join(repoRoot, 'models', model, 'model.safetensors.index.json'), 'utf8')) as { weight_map: Record<string, string> };
    for (const shard of new Set(Object.values(index.weight_map))) {
      assert.ok(files.has(`models/${model}/${shard}`), `models/${model}/${shard} is not in the package (a symlink?)`);
      shards++;
    }
  }
  assert.ok(shards >= 4, `expected the shards of both test models, found ${shards}`);
  let launched = 0;
  for (const example of readdirSync(join(repoRoot, 'examples'))) {
    const plan = join(repoRoot, 'examples', example, 'matrix.yaml');
    let text: string;
    try {
      text = readFileSync(plan, 'utf8');
    } catch {
      continue; // an example without a matrix plan
    }
    for (const [, dir] of text.matchAll(/\{faultline_root\}\/(models\/[\w.-]+)/g)) {
      assert.ok(files.has(`${dir}/config.json`), `${example}: ${dir} is not in the package`);
      launched++;
    }
    assert.ok(!text.includes('src/cli/main.ts'), `${example}: a plan that runs src/ through tsx does not work from an installed package`);
  }
  assert.ok(launched >= 2, `expected the example plans to launch the package's models, found ${launched}`);
});

test('the package ships no test helpers (random models, fake servers, attention test cases)', async () => {
  const files = [...(await packedFiles())];
  assert.ok(files.includes('dist/cli/main.js'), 'dist/ is built and packed');
  assert.ok(files.includes('dist/cli-bundle/main.js'), 'the CLI bundle bin/faultline.js runs is built and packed');
  const helpers = files.filter((f) => /^dist\/(engine\/testing\/|probe\/testing\/|.*\/testing\.js$|.*(random-init|emulated-engine|speculative-generate|fake-server)\.js$)/.test(f));
  assert.deepEqual(helpers, []);
});
