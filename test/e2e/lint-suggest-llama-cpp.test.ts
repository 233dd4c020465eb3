/**
 * `lint --suggest` on the real llama-server and Ollama launch files (test/fixtures/wild-llama-cpp):
 * every suggestion for a llama.cpp or Ollama hazard, written into a copy of the file at the region it
 * names (and its environment instruction carried out at the line it names), gives a file whose lint
 * has one finding of that hazard fewer. A suggestion that can be neither placed nor carried out fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import type { JsonReport, JsonSuggestion } from '../../src/hazards/formatters/json.js';

const fixtures = fileURLToPath(new URL('../fixtures/wild-llama-cpp/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'faultline-suggest-llama-'));
cpSync(fixtures, work, { recursive: true });

async function lintJson(path: string): Promise<JsonReport> {
  const io = memoryIO({ cwd: work });
  const code = await main(['lint', '--format', 'json', '--suggest', path], io);
  assert.ok(code === 0 || code === 1, `${path}: exit ${code}\n${io.stderr()}`);
  return JSON.parse(io.stdout()) as JsonReport;
}

const offsetOf = (lines: string[], p: { line: number; column: number }) =>
  lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;

/** The suggestion's launch text at its region, then each `remove NAME from the environment` done at its line. */
function apply(text: string, s: JsonSuggestion): string {
  let out = text;
  if (s.replaces) {
    const lines = out.split('\n');
    out =
      out.slice(0, offsetOf(lines, s.replaces.start)) + s.text + out.slice(offsetOf(lines, s.replaces.end));
  }
  for (const i of s.instructions) {
    assert.ok(i.location, `${s.hazardId} ${s.remedyId}: an instruction without a place: ${i.message}`);
    const lines = out.split('\n');
    const idx = i.location.line - 1;
    const line = lines[idx] ?? '';
    const remove = /^remove (\w+) from the server's environment$/.exec(i.message)?.[1];
    const setKey = /^set ([\w.-]+) to (\S+), the server's own default \(the file sets \w+ from \1\)$/.exec(
      i.message,
    );
    if (setKey) {
      assert.match(
        line,
        new RegExp(`^\\s*(?:-\\s+)?${setKey[1]}\\s*:`),
        `${s.remedyId}: ${setKey[1]} at line ${i.location.line}`,
      );
      lines[idx] = line.replace(/:.*$/, `: "${setKey[2]}"`);
    } else {
      assert.ok(remove, `${s.hazardId} ${s.remedyId}: an instruction lint cannot carry out: ${i.message}`);
      assert.ok(line.includes(remove), `${s.remedyId}: ${remove} is not at line ${i.location.line}: ${line}`);
      // a line that only sets the variable goes; on a line that also runs something only the assignment does
      const onlyTheAssignment = new RegExp(
        `^\\s*(?:export\\s+|-\\s+|Environment=|ENV\\s+)?["']?${remove}["']?\\s*[=:]`,
      ).test(line);
      if (onlyTheAssignment) lines.splice(idx, 1);
      else lines[idx] = line.replace(new RegExp(`${remove}=\\S*\\s*`), '');
    }
    out = lines.join('\n');
  }
  return out;
}

/** Launches whose words come from an image's ENV LLAMA_ARG_* with an exec-form ENTRYPOINT: no command text to edit. */
const PRINTED_ONLY = new Set(['llama-server--Containerfile']);

const launchFiles = readdirSync(fixtures).filter((f) => f !== 'SOURCES.md' && f !== 'expectations.json');

test('every llama.cpp / Ollama suggestion on the real files, carried out, clears one finding of its hazard', async () => {
  let verified = 0;
  let printedOnly = 0;
  const hazardsSeen = new Set<string>();
  for (const file of launchFiles) {
    const before = await lintJson(file);
    const ours = (before.suggestions ?? []).filter((s) => /^FL3\d\d$/.test(s.hazardId));
    const original = readFileSync(join(work, file), 'utf8');
    for (const [n, s] of ours.entries()) {
      if (!s.replaces && !s.instructions.length) {
        // printed as the whole launch, not placed: llama-server configured by ENV LLAMA_ARG_* in an image
        assert.ok(PRINTED_ONLY.has(file), `${file} ${s.hazardId} ${s.remedyId}: nowhere to apply it`);
        assert.ok(s.text.includes(s.change.split(',')[0]), `${file}: the printed launch carries ${s.change}`);
        printedOnly++;
        continue;
      }
      const fixed = `fixed-${n}-${file}`;
      writeFileSync(join(work, fixed), apply(original, s));
      const after = await lintJson(fixed);
      const count = (r: JsonReport) => r.findings.filter((f) => f.hazardId === s.hazardId).length;
      assert.equal(
        after.deployments.length,
        before.deployments.length,
        `${file} ${s.remedyId}: the launches stay`,
      );
      assert.equal(
        count(after),
        count(before) - 1,
        `${file}: ${s.hazardId} ${s.remedyId} must clear its finding:\n${apply(original, s)}`,
      );
      verified++;
      hazardsSeen.add(s.hazardId);
    }
  }
  // the corpus exercises suggestions of several hazards, not one
  assert.ok(verified >= 10, `only ${verified} suggestions verified`);
  assert.equal(printedOnly, PRINTED_ONLY.size, 'each printed-only file is still one');
  assert.ok(hazardsSeen.size >= 3, `suggestions of ${[...hazardsSeen].join(', ')} only`);
});

test("a rewritten launch keeps the file's words: variables, the image, ExecStart=, a folded block without continuations", async () => {
  const first = async (file: string, remedy: string) => {
    const s = (await lintJson(file)).suggestions?.find((x) => x.remedyId === remedy);
    assert.ok(s?.replaces, `${file}: a placed ${remedy} suggestion`);
    return s;
  };
  const docker = await first('overture-nlp--example-llama-server-docker.sh', 'swa-full');
  assert.match(
    docker.text,
    /^ghcr\.io\/ggml-org\/llama\.cpp:server-cuda -m \/models\/\$MODEL_FILENAME .* --swa-full$/,
  );
  const unit = await first('llama-server-infra--llama-server.service', 'swa-full');
  assert.equal(unit.replaces?.start.column, 'ExecStart='.length + 1);
  assert.match(unit.text, /^\/opt\/llama\.cpp\/build\/bin\/llama-server \\\n/);
  const swap = await first('llama-swap--docs_examples_aider-qwq-coder_llama-swap.yaml', 'spec-type-draft');
  assert.doesNotMatch(swap.text, /\\$/m, 'no shell continuations in a folded block');
  assert.match(swap.text, /\n {6}--spec-type draft-simple/);
});
