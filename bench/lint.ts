/**
 * Lint throughput: generates 1,000 launch files of every supported kind (shell, Kubernetes exec and
 * `sh -c`, production-stack values, compose, vLLM --config YAML) into a temp dir, lints them in
 * process (the same runLint + text report the CLI runs), and prints files/s. Anchor, measured in the same run on the
 * same files: reading each file and parsing it with the yaml package (or splitting lines for shell) —
 * the floor any linter of these files pays — so the ratio says how much the lint itself costs.
 * The headline figure is the whole CLI process (`node bin/faultline.js lint <1,000 files>`: start-up,
 * flag-table load, report), timed in the same run beside a process that only reads and parses the
 * same files (the floor for a process), interleaved, medians of 3 rounds; the load is printed beside.
 *   npm run build && npm run bench:lint
 * Targets: ≥ 1,000 files/s for the whole CLI process, and at most 2× the parse-only process's time
 * measured in the same run. Run it alone: with other work on the machine both figures move.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { formatOutcome, runLint } from '../src/hazards/lint-run.js';

const N = Number(process.env.BENCH_FILES ?? 1000);
const root = fileURLToPath(new URL('..', import.meta.url));

const kvs = ['fp8_e4m3', 'bfloat16', 'auto', 'fp8'];
const backends = ['FLASHINFER', 'TRITON_ATTN', 'FLASH_ATTN'];

function flags(i: number): string[] {
  const f = [
    '--attention-backend',
    backends[i % 3],
    '--kv-cache-dtype',
    kvs[i % 4],
    '--max-model-len',
    String(4096 * (1 + (i % 8))),
  ];
  if (i % 2 === 0) f.push('--attention-config', '{"disable_flashinfer_q_quantization": true}');
  if (i % 3 !== 2)
    f.push('--speculative-config', `{"method": "mtp", "num_speculative_tokens": ${1 + (i % 8)}}`);
  if (i % 5 === 0) f.push('--enforce-eager');
  return f;
}

const q = (s: string) => `'${s}'`;
const yamlList = (xs: string[], indent: string) => xs.map((x) => `${indent}- ${q(x)}`).join('\n');

const generators: ((i: number) => [string, string])[] = [
  (i) => [
    `serve-${i}.sh`,
    `#!/bin/sh\nexport VLLM_LOGGING_LEVEL=INFO\nexec vllm serve org/model-${i} \\\n  ${flags(i)
      .map((x) => (x.startsWith('{') ? q(x) : x))
      .join(' \\\n  ')}\n`,
  ],
  (i) => [
    `deploy-exec-${i}.yaml`,
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m${i}\nspec:\n  template:\n    spec:\n      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-B200\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai\n          command: ["vllm", "serve"]\n          args:\n            - org/model-${i}\n${yamlList(flags(i), '            ')}\n`,
  ],
  (i) => [
    `deploy-shc-${i}.yaml`,
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m${i}\nspec:\n  template:\n    spec:\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai\n          command: ["/bin/sh", "-c"]\n          args:\n            - |\n              vllm serve org/model-${i} ${flags(
      i,
    )
      .map((x) => (x.startsWith('{') ? q(x) : x))
      .join(' ')}\n`,
  ],
  (i) => [
    `values-${i}.yaml`,
    `servingEngineSpec:\n  modelSpec:\n    - name: "m${i}"\n      repository: "vllm/vllm-openai"\n      tag: "latest"\n      modelURL: "org/model-${i}"\n      requestGPU: 1\n      vllmConfig:\n        maxModelLen: 8192\n        extraArgs:\n${yamlList(flags(i), '          ')}\n`,
  ],
  (i) => [
    `compose-${i}.yaml`,
    `services:\n  vllm:\n    image: vllm/vllm-openai\n    command:\n      - org/model-${i}\n${yamlList(flags(i), '      ')}\n`,
  ],
  (i) => [
    `vllm-config-${i}.yaml`,
    `model: org/model-${i}\nkv-cache-dtype: ${kvs[i % 4]}\nattention-backend: ${backends[i % 3]}\nmax-model-len: 8192\nspeculative-config:\n  method: mtp\n  num_speculative_tokens: ${1 + (i % 8)}\nattention-config:\n  disable_flashinfer_q_quantization: ${i % 2 === 0}\n`,
  ],
];

const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-lint-'));
try {
  copyFileSync(join(root, 'examples/seed-b200/config.json'), join(dir, 'config.json'));
  copyFileSync(join(root, 'examples/seed-b200/hf_quant_config.json'), join(dir, 'hf_quant_config.json'));
  const files: string[] = [];
  for (let i = 0; i < N; i++) {
    const [name, text] = generators[i % generators.length](i);
    writeFileSync(join(dir, name), text);
    files.push(join(dir, name));
  }

  const anchor = (): number => {
    let n = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      n += f.endsWith('.sh') ? text.split('\n').length : parseAllDocuments(text).length;
    }
    return n;
  };
  let findings = 0;
  let launches = 0;
  let bytes = 0;
  const lint = (): void => {
    // One run over all files with the default text report, as `faultline lint dir/*` does (minus process start).
    const r = runLint({ files, modelConfig: join(dir, 'config.json'), gpu: 'NVIDIA B200', cwd: dir });
    bytes = formatOutcome(r, 'text', { color: false, env: {} }).length;
    findings = r.findings.length;
    launches = r.deployments.length;
  };
  const time = (fn: () => unknown): number => {
    const t0 = performance.now();
    fn();
    return (performance.now() - t0) / 1000;
  };

  // The whole CLI process, and a process that only reads and parses the files (same node, same files).
  const cli = join(root, 'bin/faultline.js');
  const listFile = join(dir, 'files.json');
  writeFileSync(listFile, JSON.stringify(files));
  const floorScript = join(dir, 'floor.mjs');
  writeFileSync(
    floorScript,
    `import { readFileSync } from 'node:fs';\nimport { parseAllDocuments } from ${JSON.stringify(join(root, 'node_modules/yaml/dist/index.js'))};\n` +
      `let n = 0; for (const f of JSON.parse(readFileSync(process.argv[2], 'utf8'))) { const t = readFileSync(f, 'utf8'); n += f.endsWith('.sh') ? t.split('\\n').length : parseAllDocuments(t).length; }\nconsole.log(n);\n`,
  );
  const run = (argv: string[]): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, argv, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30 });
    const s = (performance.now() - t0) / 1000;
    if (r.status !== 0 && r.status !== 1) throw new Error(`exit ${r.status}: ${r.stderr}`);
    return s;
  };
  const cliArgs = [cli, 'lint', ...files, '--model-config', join(dir, 'config.json'), '--gpu', 'NVIDIA B200'];
  const cliTimes: number[] = [];
  const floorTimes: number[] = [];
  run([floorScript, listFile]);
  run(cliArgs);
  for (let round = 0; round < 3; round++) {
    floorTimes.push(run([floorScript, listFile]));
    cliTimes.push(run(cliArgs));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cliS = median(cliTimes);
  const floorS = median(floorTimes);

  time(anchor); // warm-up (JIT, file cache)
  time(lint);
  const anchorS = Math.min(time(anchor), time(anchor));
  const lintS = Math.min(time(lint), time(lint));
  const rate = N / lintS;
  console.log(
    `files:          ${N} (${generators.length} kinds), ${launches} launches, ${findings} findings, ${(bytes / 1e6).toFixed(1)} MB of text report`,
  );
  console.log(`lint:           ${rate.toFixed(0)} files/s (${(lintS * 1000).toFixed(0)} ms; best of 2)`);
  console.log(`anchor (parse): ${(N / anchorS).toFixed(0)} files/s (${(anchorS * 1000).toFixed(0)} ms)`);
  console.log(`ratio lint/anchor time: ${(lintS / anchorS).toFixed(1)}×`);
  const cliRate = N / cliS;
  console.log(`CLI process:    ${cliRate.toFixed(0)} files/s (${(cliS * 1000).toFixed(0)} ms; median of 3, node bin/faultline.js lint …)`);
  console.log(`parse-only process (floor): ${(N / floorS).toFixed(0)} files/s (${(floorS * 1000).toFixed(0)} ms; median of 3)`);
  console.log(`ratio CLI/floor time: ${(cliS / floorS).toFixed(1)}×`);
  console.log(`load (1/5/15 min): ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
  console.log(`target ≥ 1,000 files/s for the whole CLI process: ${cliRate >= 1000 ? 'met' : 'NOT met'}`);
  console.log(`target CLI/floor time ≤ 2×: ${cliS / floorS <= 2 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
