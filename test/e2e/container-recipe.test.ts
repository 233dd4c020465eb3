/**
 * examples/container/: the Dockerfile is not built here (no Docker engine on these machines), so it
 * is checked statically (test/helpers/dockerfile-rules.ts), and each rule is shown to catch the
 * mistake it is for. Running its ENTRYPOINT is test/slow/standalone.test.ts's job.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STANDALONE_EXECUTABLE } from '../../scripts/standalone/build.js';
import { repoRoot } from '../helpers/cli.js';
import { checkDockerfile, type RecipeExpectations } from '../helpers/dockerfile-rules.js';

const dockerfile = readFileSync(join(repoRoot, 'examples/container/Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };
const [, major, minor] = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node) ?? [];
const want: RecipeExpectations = {
  scripts: new Set(Object.keys(pkg.scripts)),
  nodeMin: [Number(major), Number(minor)],
  standaloneOutput: STANDALONE_EXECUTABLE,
  entrypoints: { vllm: ['faultline', 'guard', '--', 'vllm', 'serve'], canary: ['faultline'] },
  defaultTarget: 'vllm',
};

test('the Dockerfile passes the validator and every recipe rule', () => {
  assert.ok(major, `engines.node ${pkg.engines.node} is not of the form >=MAJOR.MINOR`);
  assert.deepEqual(checkDockerfile(dockerfile, want), []);
});

test('each rule catches the mistake it is for', () => {
  const broken = (from: string, to: string) => {
    assert.ok(dockerfile.includes(from), `the Dockerfile no longer has ${JSON.stringify(from)}`);
    return checkDockerfile(dockerfile.replace(from, to), want);
  };
  const cases: [string, string, RegExp][] = [
    ['ARG VLLM_IMAGE=vllm/vllm-openai:v0.23.1', 'ARG VLLM_IMAGE=vllm/vllm-openai:latest', /"latest" is not a pin/],
    ['ARG VLLM_IMAGE=vllm/vllm-openai:v0.23.1', 'ARG VLLM_IMAGE=vllm/vllm-openai', /pin a tag or digest/],
    ['FROM node:20.20.2-bookworm-slim', 'FROM node:18.20-bookworm-slim', /engines need Node 20\.19\+/],
    ['ENTRYPOINT ["faultline", "guard", "--", "vllm", "serve"]', 'ENTRYPOINT faultline guard -- vllm serve', /not in exec \(JSON array\) form/],
    ['ENTRYPOINT ["faultline", "guard", "--", "vllm", "serve"]', 'ENTRYPOINT ["faultline", "guard", "vllm", "serve"]', /want \["faultline","guard","--","vllm","serve"\]/],
    ['COPY --from=faultline', 'COPY --from=builder', /no earlier stage of that name/],
    ['/src/build/standalone/faultline', '/src/dist/faultline', /build:standalone writes \/src\/build\/standalone\/faultline/],
    ['npm run build:standalone', 'npm run build:standlone', /npm run build:standlone: no such script/],
    ['RUN npm ci --ignore-scripts', 'RUN true', /npm run build before npm ci/],
    ['COPY . .', 'ADD . .', /ADD: use COPY/],
    ['RUN npm run build &&', 'RUN cd /src && npm run build &&', /RUN cd: use WORKDIR/],
    ['/usr/local/bin/faultline\n', '/opt/faultline-bin\n', /stage canary does not put faultline into \/usr\/local\/bin/],
    ['FROM ${VLLM_IMAGE} AS vllm', 'FROM ${VLLM_IMAGE} AS serving', /the last stage \(the default target\) is not vllm/],
    ['ENTRYPOINT ["faultline"]', 'ENTRYPOINT faultline', /not in exec \(JSON array\) form/],
    ['WORKDIR /src', 'WORKDIR src', /line \d+: .*(absolute|relative)/i],
    ['COPY package.json', 'COPPY package.json', /line \d+: .*(unknown|instruction)/i],
  ];
  for (const [from, to, expected] of cases) {
    const problems = broken(from, to);
    assert.ok(problems.some((p) => expected.test(p)), `${from} → ${to}: expected ${expected}, got ${JSON.stringify(problems)}`);
  }
});

test('the dockerignore next to it keeps host installs and builds out of the context', () => {
  const ignored = readFileSync(join(repoRoot, 'examples/container/Dockerfile.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const p of ['node_modules', 'dist', 'build', '.git']) assert.ok(ignored.includes(p), p);
});
