import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDeployment } from '../../../test/helpers/hazards/deployment-builder.js';
import type { Deployment } from '../../deployment/deployment.js';
import { gpuFamily } from './gpu.js';
import { withHardwareCandidates } from './hardware-candidates.js';
import { amdGpu } from './sglang/model.js';

const at = { file: 'task.yaml', line: 3, column: 5 };
const candidates = (...gpus: [string, number][]): Deployment['gpuCandidates'] =>
  gpus.map(([name, sm]) => ({ value: { name, sm }, at }));
const sm100 = withHardwareCandidates(gpuFamily(100));

test('GPU candidates: not met when none is in the family, met when all are, unknown naming them otherwise', () => {
  const d = buildDeployment({});
  assert.equal(sm100.check(d).status, 'unknown', 'no GPU and no candidates: unknown');
  const none = sm100.check({ ...d, gpuCandidates: candidates(['L4', 89], ['A100', 80]) });
  assert.equal(none.status, 'not-met');
  assert.match(none.detail, /none of the GPUs the launch may run on \(L4, A100\)/);
  assert.equal(sm100.check({ ...d, gpuCandidates: candidates(['B200', 100], ['B300', 103]) }).status, 'met');
  const some = sm100.check({ ...d, gpuCandidates: candidates(['H100', 90], ['B200', 100]) });
  assert.equal(some.status, 'unknown');
  assert.match(some.detail, /possible on B200, not on H100/);
});

test('a known GPU wins over candidates and platform', () => {
  const d = {
    ...buildDeployment({ gpu: { name: 'NVIDIA B200', sm: 100 } }),
    gpuCandidates: candidates(['L4', 89], ['A100', 80]),
  };
  assert.equal(sm100.check(d).status, 'met');
});

test('ROCm rules out NVIDIA families; it does not make an NVIDIA condition met, and AMD-only conditions hold', () => {
  const rocm: Deployment['platform'] = {
    value: 'rocm',
    evidence: 'the image rocm/vllm:latest is a ROCm build',
    at,
  };
  const d = { ...buildDeployment({}), platform: rocm };
  const r = sm100.check(d);
  assert.equal(r.status, 'not-met');
  assert.match(
    r.detail,
    /^the launch runs on AMD GPUs \(the image rocm\/vllm:latest is a ROCm build\): an AMD GPU \(ROCm\) is not in the SM100 family/,
  );
  assert.equal(withHardwareCandidates(amdGpu()).check(d).status, 'met');
  const cuda: Deployment['platform'] = {
    value: 'cuda',
    evidence: 'the image vllm/vllm-openai:v0.11.0 is a CUDA build',
    at,
  };
  assert.equal(
    withHardwareCandidates(amdGpu()).check({ ...buildDeployment({}), platform: cuda }).status,
    'not-met',
  );
  assert.equal(withHardwareCandidates(amdGpu()).check(buildDeployment({})).status, 'unknown');
});
