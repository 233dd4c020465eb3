/**
 * node-llama-cpp is loaded lazily: no command's module (src/cli/commands/index.ts loads the one a
 * command line names) reaches it through a static import, so lint, guard, plan, probe and the
 * faultline runtime never load it; the one dynamic import sits in src/llama-cpp/binding.ts, and
 * `engine serve` reaches it only through `await import(…)` once --runtime llama.cpp is given.
 * Static imports are followed through the source (type-only imports are erased by the compiler
 * and do not count).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Specifiers of the static, value-level imports and re-exports of one file. */
function staticImports(text: string): string[] {
  const out: string[] = [];
  const statement = /^(?:import|export)\s+(?!type\b)([\s\S]*?)\s+from\s+'([^']+)';|^import\s+'([^']+)';/gm;
  for (const m of text.matchAll(statement)) out.push(m[2] ?? m[3]);
  return out;
}

function graph(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.startsWith(src)) return;
    for (const spec of staticImports(readFileSync(file, 'utf8')))
      walk(spec.startsWith('.') ? resolve(dirname(file), spec).replace(/\.js$/, '.ts') : spec);
  };
  walk(entry);
  return seen;
}

/** The command modules src/cli/commands/index.ts loads on demand, one per command. */
function commandFiles(): string[] {
  const index = readFileSync(join(src, 'cli/commands/index.ts'), 'utf8');
  return [...index.matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map((m) =>
    join(src, 'cli/commands', `${m[1]}.ts`),
  );
}

test('no command, and with them lint, guard, plan, probe and the faultline runtime, statically imports node-llama-cpp', () => {
  const commands = commandFiles();
  assert.ok(commands.length >= 8, `found ${commands.length} command modules in src/cli/commands/index.ts`);
  const loaded = new Set([join(src, 'cli/main.ts'), ...commands].flatMap((f) => [...graph(f)]));
  for (const must of [
    'cli/commands/lint.ts',
    'cli/commands/guard.ts',
    'cli/commands/plan.ts',
    'server/build.ts',
    'llama-cpp/flags.ts',
  ])
    assert.ok(loaded.has(join(src, must)), `the walk does not reach ${must}`);
  assert.ok(!loaded.has('node-llama-cpp'), 'node-llama-cpp is reached by a static import');
  assert.ok(
    !loaded.has(join(src, 'llama-cpp/binding.ts')),
    'binding.ts (the dynamic import) is loaded with a command',
  );
});

test('the walk sees a static import of node-llama-cpp where there is one (the check can fail)', () => {
  assert.deepEqual(
    staticImports(
      "import { getLlama } from 'node-llama-cpp';\nimport type { Token } from 'node-llama-cpp';\n",
    ),
    ['node-llama-cpp'],
  );
});

test('the only import of node-llama-cpp that loads it is the dynamic one in binding.ts', () => {
  const files: string[] = [];
  const list = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) list(p);
      else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) files.push(p);
    }
  };
  list(src);
  const loading = files.filter((f) => {
    const text = readFileSync(f, 'utf8');
    return (
      staticImports(text).includes('node-llama-cpp') ||
      /\bimport\('node-llama-cpp'\)/.test(
        text.replace(/typeof import\('node-llama-cpp'\)|type \w+ = import\('node-llama-cpp'\)/g, ''),
      )
    );
  });
  assert.deepEqual(
    loading.map((f) => f.slice(src.length + 1)),
    ['llama-cpp/binding.ts'],
  );
});
