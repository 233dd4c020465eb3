/**
 * The corpus of real public launch files (test/fixtures/wild, provenance in SOURCES.md): each is
 * linted as the CLI lints it, and its expectations row is checked — exit code, how many launches
 * and which roles were read, the models, hazards that must and must not fire (FL000 must not:
 * no flag of these files is refused). Facts are not given (no --gpu, --model-config), so the
 * hazards that fire for certain are the ones that need none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isUserError } from '../../src/core/errors.js';
import { runLint } from '../../src/hazards/lint-run.js';

const dir = fileURLToPath(new URL('../fixtures/wild/', import.meta.url));

interface Expectation {
  file: string;
  exit: 0 | 1 | 2;
  launches?: number;
  roles?: (string | null)[];
  models?: (string | null)[];
  mustFire?: string[];
  mustNotFire?: string[];
  error?: string;
}

const rows = JSON.parse(readFileSync(`${dir}expectations.json`, 'utf8')) as Expectation[];

test('the corpus has at least 60 real files, each with a provenance row', () => {
  const sources = readFileSync(`${dir}SOURCES.md`, 'utf8');
  assert.ok(rows.length >= 60, `${rows.length} files`);
  for (const r of rows) assert.match(sources, new RegExp(`\\| ${r.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\| [\\w.-]+/[\\w.-]+ \\| \\S+ \\| [0-9a-f]{40} \\|`), r.file);
});

for (const r of rows)
  test(`wild: ${r.file}`, () => {
    let outcome;
    try {
      outcome = runLint({ files: [r.file], cwd: dir });
    } catch (e) {
      assert.ok(isUserError(e), `${r.file}: not a UserError: ${String(e)}`);
      assert.equal(r.exit, 2, `${r.file}: ${e.message}`);
      if (r.error) assert.ok(e.message.includes(r.error.replace(/^.*?: /, '').slice(0, 60)) || e.message.includes(r.error.slice(0, 60)), `${e.message} vs ${r.error}`);
      return;
    }
    assert.equal(outcome.findings.length > 0 ? 1 : 0, r.exit, r.file);
    assert.equal(outcome.deployments.length, r.launches, r.file);
    assert.deepEqual(outcome.deployments.map((d) => d.role ?? null), r.roles, r.file);
    assert.deepEqual(outcome.deployments.map((d) => d.model?.value ?? null), r.models, r.file);
    const definite = new Set<string>(outcome.findings.filter((f) => f.severity === 'error').map((f) => f.hazard.id));
    for (const id of r.mustFire ?? []) assert.ok(definite.has(id), `${r.file}: ${id} must fire`);
    const fired = new Set<string>(outcome.findings.map((f) => f.hazard.id));
    for (const id of r.mustNotFire ?? []) assert.ok(!fired.has(id), `${r.file}: ${id} must not fire`);
  });
