/**
 * Every generated flag table (data/vllm-flags/, data/sglang-flags/; scripts/*-flags/refresh-release.sh
 * writes them) is well formed and ordered: it names the release, repository, 40-hex commit and date
 * it was read at; each flag has a dest, option strings no other flag of the table has, a kind the
 * argv emulations know, and choices where it is a choice; vLLM's flags are sorted as the generator
 * writes them; and the tables, in the order the loaders list them, are releases in ascending order
 * whose commits are dated in that order. A hand edit or a table generated from the wrong ref fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { tableLines } from './engines/sglang/flag-table.js';
import { tableMinors } from './vllm-flag-table.js';
import { compareVersions, parseVersion } from './versions.js';

const COMMIT = /^[0-9a-f]{40}$/;
const VLLM_KINDS = new Set([
  'bool',
  'int',
  'float',
  'string',
  'json',
  'list',
  'choice',
  'optional-value',
  'bool-value',
  'count',
]);
const SGLANG_KINDS = new Set(['flag', 'string', 'int', 'float', 'json', 'list', 'choice']);

interface Flag {
  dest?: unknown;
  options?: unknown;
  positional?: boolean;
  kind?: unknown;
  choices?: unknown;
  choicesOpen?: boolean;
}

function read(dir: string, file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(packageRoot, 'data', dir, file), 'utf8')) as Record<string, unknown>;
}

function isoDate(v: unknown, where: string): number {
  assert.equal(typeof v, 'string', `${where}: date`);
  const t = Date.parse(v as string);
  assert.ok(
    Number.isFinite(t) && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(v as string),
    `${where}: date ${String(v)} is not ISO 8601`,
  );
  return t;
}

/** The flag-level checks both engines' tables share; returns the flags' sort keys. */
function checkFlags(flags: unknown, kinds: Set<string>, where: string): string[] {
  assert.ok(Array.isArray(flags) && flags.length > 50, `${where}: flags`);
  const seen = new Map<string, string>();
  const keys: string[] = [];
  for (const f of flags as Flag[]) {
    assert.ok(
      typeof f.dest === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(f.dest),
      `${where}: dest ${String(f.dest)}`,
    );
    assert.ok(Array.isArray(f.options), `${where}: ${f.dest} options`);
    const options = f.options as unknown[];
    assert.ok(options.length > 0 || f.positional, `${where}: ${f.dest} has no option string`);
    for (const o of options) {
      assert.ok(
        typeof o === 'string' && /^--?[A-Za-z0-9]/.test(o),
        `${where}: ${f.dest} option ${String(o)}`,
      );
      assert.equal(seen.get(o), undefined, `${where}: ${o} belongs to ${seen.get(o)} and ${f.dest}`);
      seen.set(o, f.dest);
    }
    assert.ok(typeof f.kind === 'string' && kinds.has(f.kind), `${where}: ${f.dest} kind ${String(f.kind)}`);
    if (f.choices !== undefined)
      assert.ok(
        Array.isArray(f.choices) && f.choices.every((c) => typeof c === 'string'),
        `${where}: ${f.dest} choices`,
      );
    if (f.kind === 'choice')
      assert.ok(
        (Array.isArray(f.choices) && f.choices.length > 0) || f.choicesOpen,
        `${where}: ${f.dest} is a choice without choices`,
      );
    keys.push(options.length ? (options[0] as string) : f.dest);
  }
  return keys;
}

test('vLLM flag tables: one per minor, each a release tag with its commit and date, flags well formed and sorted; minors ascend in release order', () => {
  const files = readdirSync(join(packageRoot, 'data', 'vllm-flags')).filter((f) => f.endsWith('.json'));
  const minors = tableMinors();
  assert.deepEqual(
    files.map((f) => Number(/^0\.(\d+)\.json$/.exec(f)?.[1])).sort((a, b) => a - b),
    minors,
    'every table file is 0.<minor>.json',
  );
  let previous: { version: string; date: number } | undefined;
  for (const minor of minors) {
    const where = `0.${minor}.json`;
    const t = read('vllm-flags', where);
    const version = t.vllmVersion as string;
    const v = parseVersion(version);
    assert.ok(
      v && v.release[0] === 0 && v.release[1] === minor,
      `${where}: vllmVersion ${version} is not of 0.${minor}`,
    );
    assert.ok(v.pre === undefined && v.dev === undefined, `${where}: ${version} is a pre-release`);
    const source = t.source as Record<string, unknown>;
    assert.equal(source.repository, 'vllm-project/vllm', `${where}: repository`);
    assert.equal(source.ref, `v${version}`, `${where}: read at the release's own tag`);
    assert.match(String(source.commit), COMMIT, `${where}: commit`);
    const date = isoDate(source.date, where);
    assert.ok(Array.isArray(source.files) && source.files.length > 0, `${where}: source files`);
    assert.equal(t.generator, 'scripts/vllm-flags/extract_vllm_flags.py');
    const keys = checkFlags(t.flags, VLLM_KINDS, where);
    assert.deepEqual(keys, [...keys].sort(), `${where}: flags are sorted by their first option string`);
    if (previous) {
      assert.ok(
        compareVersions(previous.version, version) < 0,
        `${where}: ${version} after ${previous.version}`,
      );
      assert.ok(previous.date <= date, `${where}: ${version} dated before ${previous.version}`);
    }
    previous = { version, date };
  }
});

test('SGLang flag tables: one per release line plus main, each naming its commit and date, flags well formed; lines ascend in release order, main last', () => {
  const files = readdirSync(join(packageRoot, 'data', 'sglang-flags')).filter((f) => f.endsWith('.json'));
  const lines = tableLines();
  assert.deepEqual(
    [...files].sort(),
    [...lines.map((l) => `${l}.json`), 'main.json'].sort(),
    'every table file is X.Y.Z.json or main.json',
  );
  let previous: { version: string; date: number } | undefined;
  for (const line of [...lines, 'main']) {
    const where = `${line}.json`;
    const t = read('sglang-flags', where);
    const version = t.sglangVersion as string | null;
    if (line === 'main') assert.equal(version, null, 'main.json names no release');
    else {
      const v = version ? parseVersion(version) : undefined;
      assert.ok(
        v && v.release.slice(0, 3).join('.') === line,
        `${where}: sglangVersion ${String(version)} is not of ${line}`,
      );
      assert.ok(v.pre === undefined && v.dev === undefined, `${where}: ${String(version)} is a pre-release`);
    }
    const source = t.source as Record<string, unknown>;
    assert.equal(source.upstream, 'sgl-project/sglang', `${where}: upstream`);
    assert.match(String(source.repository), /^[\w.-]+\/[\w.-]+$/, `${where}: repository`);
    assert.match(String(source.commit), COMMIT, `${where}: commit`);
    const date = isoDate(source.date, where);
    // server_args.py, then the SGLang modules whose class constants (Backend.BREAKABLE) a value came from
    const files = source.files as string[];
    assert.equal(files[0], 'python/sglang/srt/server_args.py', `${where}: files`);
    for (const f of files.slice(1)) assert.match(f, /^python\/sglang\/[\w/]+\.py$/, `${where}: ${f}`);
    assert.equal(t.generator, 'scripts/sglang-flags/extract_sglang_flags.py');
    assert.ok(t.fieldDefaults && typeof t.fieldDefaults === 'object', `${where}: fieldDefaults`);
    checkFlags(t.flags, SGLANG_KINDS, where);
    // a deprecated alias that stores a constant (--enable-breakable-cuda-graph → breakable) says which
    for (const f of t.flags as { options: string[]; action?: string; const?: unknown }[])
      if (f.action === 'DeprecatedStoreConstAction') assert.equal(typeof f.const, 'string', `${where}: ${f.options[0]} has no constant`);
    if (previous) {
      if (version)
        assert.ok(
          compareVersions(previous.version, version) < 0,
          `${where}: ${version} after ${previous.version}`,
        );
      assert.ok(previous.date <= date, `${where} dated before ${previous.version}`);
    }
    previous = { version: version ?? 'main', date };
  }
});
