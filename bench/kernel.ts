/**
 * `faultline kernel verify` throughput on this machine, next to a NumPy reference on the same dumps
 * measured in the same run (bench/kernel_numpy.py with Debian's /usr/bin/python3 + python3-numpy).
 *
 *   npm run bench:kernel       (or: node --import tsx bench/kernel.ts [--preset swa-specdec-large] [--repeats 3])
 *
 * Steps: write the preset's vectors to a temporary directory, fill outputs with the engine's decode
 * path (no fault model), then time (best of --repeats) faultline's reference recompute (what verify
 * spends its time on) and the whole verify, and NumPy's float64 einsum reference on the same files.
 * GFLOP/s counts 4·head_dim per (row, head, attended key) on both sides. The NumPy side also reports
 * its max |reference − output| per dump, a cross-check that both compute the same thing.
 * Exit 1 when NumPy is missing (says so; no ratio is invented).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readKernelDump, writeKernelDump, type KernelDump } from '../src/kernel/dump-format.js';
import { runEngineOnDump } from '../src/kernel/engine-run.js';
import { presetByName } from '../src/kernel/presets.js';
import { referenceOutput } from '../src/kernel/reference-inputs.js';
import { writeVectors } from '../src/kernel/vectors.js';
import { verifyDump } from '../src/kernel/verify.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const PRESET = arg('preset', 'swa-specdec-large');
const REPEATS = Number(arg('repeats', '3'));
const PYTHON = arg('python', '/usr/bin/python3');
const numpyScript = fileURLToPath(new URL('./kernel_numpy.py', import.meta.url));

function flops(d: KernelDump): number {
  let keys = 0;
  const q = d.meta.qLenPerReq;
  for (const s of d.seqLens)
    for (let t = 0; t < q; t++) {
      const p = s - q + t;
      keys += p - (d.meta.windowLeft < 0 ? 0 : Math.max(0, p - d.meta.windowLeft)) + 1;
    }
  return 4 * d.geometry.numHeads * d.geometry.headDim * keys;
}

function best(fn: () => void): number {
  let b = Infinity;
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    fn();
    b = Math.min(b, (performance.now() - t0) / 1000);
  }
  return b;
}

const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-kernel-'));
try {
  const m = writeVectors(dir, presetByName(PRESET), { seed: 1, unitScales: false });
  for (const c of m.cases) {
    const f = join(dir, c.file);
    writeKernelDump(f, runEngineOnDump(readKernelDump(f), { policy: 'fixed', faultModel: null }).dump);
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.safetensors')).sort();
  const dumps = files.map((f) => readKernelDump(join(dir, f)));
  const gflop = dumps.reduce((n, d) => n + flops(d), 0) / 1e9;
  referenceOutput(dumps[0]); // warm-up
  const tRef = best(() => dumps.forEach((d) => referenceOutput(d)));
  const tVerify = best(() => files.forEach((f) => verifyDump(readKernelDump(join(dir, f)), { kind: 'auto' })));
  const tsErr = dumps.map((d) => verifyDump(d, { kind: 'auto' }).maxAbsError);

  console.log(`preset ${PRESET}: ${dumps.length} dumps, ${gflop.toFixed(3)} GFLOP of attention; best of ${REPEATS}`);
  console.log(`faultline reference recompute   ${tRef.toFixed(3)} s   ${(gflop / tRef).toFixed(2)} GFLOP/s`);
  console.log(`faultline verify (read+ref+cmp) ${tVerify.toFixed(3)} s   ${(gflop / tVerify).toFixed(2)} GFLOP/s`);

  // one BLAS thread: faultline's verify runs on one core, so the anchor does too
  const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  const py = spawnSync(PYTHON, [numpyScript, dir, String(REPEATS)], { encoding: 'utf8', maxBuffer: 1 << 24, env });
  let res: { seconds?: number; gflop?: number; maxAbsPerDump?: number[]; numpy?: string; error?: string } = {};
  try {
    res = JSON.parse(py.stdout.trim().split('\n').pop() ?? '');
  } catch {
    res = { error: py.error ? `${PYTHON}: ${py.error.message}` : `no result (exit ${py.status}): ${py.stderr.trim().slice(-400)}` };
  }
  if (res.error || res.seconds === undefined) {
    console.log(`NumPy anchor: NOT AVAILABLE — ${res.error ?? 'no result'}`);
    console.log('install it with: apt-get update && apt-get install -y python3-numpy (or pass --python PATH)');
    process.exitCode = 1;
  } else {
    const agree = Math.max(...(res.maxAbsPerDump ?? []).map((e, i) => Math.abs(e - tsErr[i])));
    console.log(`NumPy ${res.numpy} einsum reference (1 thread) ${res.seconds.toFixed(3)} s   ${(res.gflop! / res.seconds).toFixed(2)} GFLOP/s (same ${res.gflop!.toFixed(3)} GFLOP)`);
    console.log(`ratio faultline reference / NumPy: ${(res.seconds / tRef).toFixed(2)}× (target ≥ 0.5×); verify / NumPy: ${(res.seconds / tVerify).toFixed(2)}×`);
    console.log(`cross-check: per-dump max |ref − output| agrees between faultline and NumPy within ${agree.toExponential(2)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
