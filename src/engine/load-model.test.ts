import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isUserError } from '../core/errors.js';
import { loadModel } from './load-model.js';
import { configJson, randomModel, tinyConfig, writeModelDir } from './testing/random-init.js';

function withDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-engine-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a written model loads back exactly (weights are BF16 values, scales F32)', () => {
  withDir((dir) => {
    const scales = [{ q: 0.5, k: 0.25, v: 0.125 }, { q: 1, k: 0.03, v: 2 }, { q: 1, k: 1, v: 1 }];
    const m = randomModel(tinyConfig({ declaresFp8KvCache: true }), { seed: 3, scales });
    writeModelDir(dir, m);
    const back = loadModel(dir);
    assert.deepEqual(back.config, m.config);
    assert.deepEqual(back.weights.layers[1].wq, m.weights.layers[1].wq);
    assert.deepEqual(back.weights.embed, m.weights.embed);
    assert.deepEqual(back.weights.mtp!.ehProj, m.weights.mtp!.ehProj);
    assert.deepEqual(back.weights.scales, scales.map((s) => ({ q: Math.fround(s.q), k: Math.fround(s.k), v: Math.fround(s.v) })));
    assert.deepEqual(back.weights.scalesPresent, { q: true, k: true, v: true });
  });
});

test('errors name the file and the problem: no config, bad JSON with line:col, wrong shape', () => {
  withDir((dir) => {
    assert.throws(() => loadModel(dir), (e) => isUserError(e) && /no config\.json/.test(e.message));
    writeFileSync(join(dir, 'config.json'), '{\n  "hidden_size": 64,\n  oops\n}');
    assert.throws(() => loadModel(dir), (e) => isUserError(e) && e.at?.line === 3);
    const m = randomModel(tinyConfig(), { seed: 3 });
    writeModelDir(dir, m);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...configJson(m.config), intermediate_size: 96 }));
    assert.throws(() => loadModel(dir), (e) => isUserError(e) && /mlp\.gate_proj\.weight" has shape \[128, 64\], expected \[96, 64\]/.test(e.message));
  });
});
