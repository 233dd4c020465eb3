/**
 * The corpus of real public llama-server and Ollama launch files (test/fixtures/wild-llama-cpp,
 * provenance in SOURCES.md): each file is loaded in process through the loader lint uses, and its
 * expectations row is checked — the source kind, engine, number of launches, the version the file
 * names, every fact read (as the launch writes it: null where only a default applies), the
 * LLAMA_ARG_* / OLLAMA_* environment, and exactly which flags llama-server would (possibly) refuse,
 * with the reason the row gives. Linting every file finds no hazard but those FL000s: no vLLM or
 * SGLang hazard applies to these engines. One CLI spawn checks what `lint` prints for a launch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadLaunchFiles } from '../../src/deployment/load.js';
import type { Deployment } from '../../src/deployment/deployment.js';
import { SERVING_FACT_NAMES, writtenValue } from '../../src/deployment/serving-facts.js';
import { runLint } from '../../src/hazards/lint-run.js';
import { runCli } from '../helpers/cli.js';

const dir = fileURLToPath(new URL('../fixtures/wild-llama-cpp/', import.meta.url));

type Read = Record<(typeof SERVING_FACT_NAMES)[number], unknown> & {
  envVars: Record<string, string>;
  /** Other variables that must reach the process (a subset). */
  env?: Record<string, string>;
};

interface Row {
  file: string;
  kind: string;
  engine: 'llama.cpp' | 'ollama';
  launches: number;
  version: string | null;
  flagProblems: { launch: number; option: string; kind: string; certain: boolean; reason: string }[];
  read: Read[];
}

const rows = JSON.parse(readFileSync(`${dir}expectations.json`, 'utf8')) as Row[];

test('every fixture file has a provenance row and an expectations row', () => {
  const sources = readFileSync(`${dir}SOURCES.md`, 'utf8');
  const files = readdirSync(dir).filter((f) => f !== 'SOURCES.md' && f !== 'expectations.json');
  assert.equal(files.length, 37);
  assert.deepEqual(rows.map((r) => r.file).sort(), files.sort());
  for (const f of files)
    assert.match(
      sources,
      new RegExp(
        `\\| ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\| [\\w.-]+/[\\w.-]+ \\| \\S+ \\| [0-9a-f]{40} \\|`,
      ),
      f,
    );
});

/** What FL000 reads as certain (flags-accepted.ts): llama-server would refuse to start. */
function certain(d: Deployment, p: NonNullable<Deployment['flagProblems']>[number]): boolean {
  return (
    p.kind === 'ambiguous' ||
    Boolean(p.definite) ||
    (p.kind === 'unknown' && Boolean(d.flagTable?.authoritative))
  );
}

for (const r of rows)
  test(`wild llama.cpp / Ollama: ${r.file}`, () => {
    const { deployments } = loadLaunchFiles([r.file], { cwd: dir });
    assert.equal(deployments.length, r.launches, 'launches');
    assert.equal(r.read.length, r.launches, 'one read row per launch');
    deployments.forEach((d, i) => {
      const e = r.read[i];
      const where = `launch ${i}`;
      assert.equal(d.engine, r.engine, where);
      assert.equal(d.source.kind, r.kind, where);
      assert.equal(
        d.versions.llamaCpp?.value ?? d.versions.ollama?.value ?? null,
        r.version,
        `${where}: version`,
      );
      const facts = d.engine === 'llama.cpp' ? d.llamaCpp?.facts : d.ollama?.facts;
      assert.ok(facts, `${where}: facts`);
      for (const name of SERVING_FACT_NAMES) {
        const got: unknown =
          name === 'model' ? (d.model?.value ?? null) : (writtenValue<unknown>(facts[name]) ?? null);
        assert.deepEqual(got, e[name], `${where}: ${name}`);
        // a fact the launch sets says where it was written
        const f = facts[name];
        if (f && f.from !== 'default')
          assert.ok(
            f.at && f.at.file === r.file && f.at.line >= 1,
            `${where}: ${name} is located in the file`,
          );
      }
      const envVars = Object.fromEntries(
        [...d.env].filter(([k]) => /^(OLLAMA_|LLAMA_ARG_)/.test(k)).map(([k, v]) => [k, v.value]),
      );
      assert.deepEqual(envVars, e.envVars, `${where}: LLAMA_ARG_* / OLLAMA_* variables`);
      for (const [k, v] of Object.entries(e.env ?? {}))
        assert.equal(d.env.get(k)?.value, v, `${where}: env ${k}`);
    });
    const problems = deployments.flatMap((d, i) =>
      (d.flagProblems ?? []).map((p) => ({
        launch: i,
        option: p.option,
        kind: p.kind,
        certain: certain(d, p),
      })),
    );
    assert.deepEqual(
      problems,
      r.flagProblems.map(({ reason: _reason, ...p }) => p),
      'flag problems (FL000)',
    );
    for (const p of r.flagProblems) assert.ok(p.reason.length > 20, `${p.option}: the row says why`);
  });

test('no vLLM or SGLang hazard applies to these files; FL000 fires exactly where the rows name flag problems', () => {
  // the llama.cpp and Ollama hazards (FL300–FL399) may apply; the vLLM and SGLang ranges never
  const llamaRange = /^FL3\d\d$/;
  for (const r of rows) {
    const outcome = runLint({ files: [r.file], cwd: dir, possible: true });
    const ids = new Set(outcome.findings.map((f) => f.hazard.id));
    for (const id of ids) assert.ok(id === 'FL000' || llamaRange.test(id), `${r.file}: ${id}`);
    assert.equal(ids.has('FL000'), r.flagProblems.length > 0, `${r.file}: FL000`);
    for (const f of outcome.findings.filter((x) => x.hazard.id === 'FL000'))
      assert.equal(
        f.severity === 'warning' && !f.possibly,
        r.flagProblems.some((p) => p.certain),
        `${r.file}: FL000 certainty`,
      );
  }
});

test('faultline lint on a llama-server manifest prints what it read; its findings are possible llama.cpp ones (exit 1)', async () => {
  const res = await runCli(['lint', 'renfield--k8s_llama-server.yaml'], { cwd: dir });
  assert.equal(res.code, 1, res.stderr);
  assert.match(
    res.stdout,
    /llama-server read: model \/models\/qwen3\.6-35b-a3b-q4kxl\.gguf \(-m\), context 65536 \(-c\), parallel 4 \(--parallel\), flash attention on \(-fa\), KV cache K q8_0 \(-ctk\)/,
  );
  assert.match(res.stdout, /-ngl replaces LLAMA_ARG_N_GPU_LAYERS=99/);
  // with no model config only possible llama.cpp findings (4 slots, q8_0 K): warnings
  assert.match(res.stdout, /warning {2}FL303 .*possibly affected/);
  assert.match(res.stdout, /problems? \(0 errors, \d+ warnings?\) in 1 launch/);
  // a Qwen GGUF is, by its name, no DeepSeek V4
  assert.doesNotMatch(res.stdout, /FL304/);
  assert.doesNotMatch(res.stdout, /FL[0-2]\d\d/);
});
