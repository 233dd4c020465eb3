import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../core/errors.js';
import { capabilityOf, isSm100Family, parseGpu, parseNvidiaSmiCsv } from './gpu.js';

test('nvidia-smi names from research/configs-and-cli.md §3.1 map to their capability', () => {
  const table: [string, number][] = [
    ['NVIDIA A100-SXM4-80GB', 80],
    ['NVIDIA A100 80GB PCIe', 80],
    ['NVIDIA A10G', 86],
    ['NVIDIA L4', 89],
    ['NVIDIA L40S', 89],
    ['NVIDIA H100 80GB HBM3', 90],
    ['NVIDIA H100', 90],
    ['NVIDIA H200', 90],
    ['NVIDIA GH200 480GB', 90],
    ['NVIDIA B200', 100],
    ['NVIDIA GB200', 100],
    ['NVIDIA B300 SXM6 AC', 103],
    ['NVIDIA GB300', 103],
    ['NVIDIA RTX PRO 6000 Blackwell Server Edition', 120],
    ['NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 120],
    ['NVIDIA RTX PRO 6000 Blackwell', 120],
    ['NVIDIA GeForce RTX 5090', 120],
    ['NVIDIA GB10', 121],
    ['Tesla V100-SXM2-16GB', 70],
    ['Tesla T4', 75],
    ['NVIDIA RTX A6000', 86],
  ];
  for (const [name, sm] of table) assert.deepEqual(parseGpu(name), { name, sm }, name);
});

test('short names, Kubernetes and GKE label values', () => {
  assert.equal(parseGpu('H100').sm, 90);
  assert.equal(parseGpu('b200').sm, 100);
  assert.equal(parseGpu('NVIDIA-B200').sm, 100);
  assert.equal(parseGpu('NVIDIA-H100-80GB-HBM3').sm, 90);
  assert.equal(parseGpu('NVIDIA-H100-80GB-HBM3-MIG-1g.10gb').sm, 90);
  assert.equal(parseGpu('NVIDIA-RTX-A6000').sm, 86);
  assert.equal(parseGpu('nvidia.com/gpu.product=NVIDIA-GB200').sm, 100);
  assert.equal(parseGpu('nvidia-b200').sm, 100);
  assert.equal(parseGpu('nvidia-h100-mega-80gb').sm, 90);
  assert.equal(parseGpu('nvidia-tesla-a100').sm, 80);
});

test('SM and compute-capability forms', () => {
  assert.deepEqual(parseGpu('sm100'), { sm: 100 });
  assert.deepEqual(parseGpu('SM90'), { sm: 90 });
  assert.deepEqual(parseGpu('sm_90a'), { sm: 90 });
  assert.deepEqual(parseGpu('compute_100f'), { sm: 100 });
  assert.deepEqual(parseGpu('10.0'), { sm: 100 });
  assert.deepEqual(parseGpu('10.3'), { sm: 103 });
  assert.deepEqual(parseGpu('9.0'), { sm: 90 });
  assert.deepEqual(parseGpu('12.1'), { sm: 121 });
});

test('unknown GPUs are a UserError that lists the accepted forms', () => {
  for (const bad of ['Radeon MI300X', 'B100', '', '99.9', 'sm']) {
    assert.throws(
      () => parseGpu(bad),
      (e) => e instanceof UserError && /sm100/.test(e.hint ?? ''),
      bad,
    );
  }
});

test('nvidia-smi CSV with and without header; compute_cap wins over the name table', () => {
  assert.deepEqual(parseNvidiaSmiCsv('name, compute_cap\nNVIDIA B200, 10.0\nNVIDIA B200, 10.0\n'), [
    { name: 'NVIDIA B200', sm: 100 },
    { name: 'NVIDIA B200', sm: 100 },
  ]);
  assert.deepEqual(parseNvidiaSmiCsv('NVIDIA H100 80GB HBM3, 9.0'), [
    { name: 'NVIDIA H100 80GB HBM3', sm: 90 },
  ]);
  assert.deepEqual(parseNvidiaSmiCsv('Some Future GPU, 11.0\r\n'), [{ name: 'Some Future GPU', sm: 110 }]);
  assert.deepEqual(parseNvidiaSmiCsv('name\nNVIDIA GB10\n'), [{ name: 'NVIDIA GB10', sm: 121 }]);
  assert.deepEqual(parseNvidiaSmiCsv('NVIDIA B300 SXM6 AC, [N/A]'), [
    { name: 'NVIDIA B300 SXM6 AC', sm: 103 },
  ]);
  assert.throws(() => parseNvidiaSmiCsv('name, compute_cap\n'), UserError);
  assert.throws(() => parseNvidiaSmiCsv('Mystery, [N/A]'), UserError);
});

test('SM100 family is capability // 10 == 10: SM100 and SM103 only', () => {
  assert.ok(isSm100Family(100));
  assert.ok(isSm100Family(103));
  for (const sm of [90, 110, 120, 121, 89]) assert.ok(!isSm100Family(sm), String(sm));
  assert.equal(capabilityOf(103), '10.3');
});
