/**
 * The prefill CUDA-graph backend read in both layouts SGLang has had: the booleans up to 0.5.13 and
 * cuda_graph_backend_prefill from 0.5.14 (the old booleans as deprecated aliases storing a constant
 * into it, --cuda-graph-config's prefill.backend winning); and a renamed field read under its old
 * name in every release.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentFromArgv } from '../../../deployment/load.js';
import { breakableCudaGraph, piecewiseCudaGraph, prefillCudaGraph } from './prefill-cuda-graph.js';
import { sglArg } from './args.js';

const launch = (version: string, ...extra: string[]) =>
  deploymentFromArgv(['python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', ...extra], {
    cwd: '/',
    sglangVersion: version,
  });

test('0.5.18: every way of naming the prefill backend reaches cuda_graph_backend_prefill; unnamed is unknown', () => {
  const cases: [string[], string | undefined][] = [
    [['--cuda-graph-backend-prefill', 'breakable'], 'breakable'],
    [['--enable-breakable-cuda-graph'], 'breakable'],
    [['--disable-piecewise-cuda-graph'], 'disabled'],
    [['--enforce-piecewise-cuda-graph'], 'tc_piecewise'],
    [['--disable-cuda-graph'], 'disabled'],
    // the JSON config wins over the per-phase flag, as SGLang's _handle_cuda_graph_config orders them
    [['--cuda-graph-backend-prefill', 'breakable', '--cuda-graph-config', '{"prefill": {"backend": "tc_piecewise"}}'], 'tc_piecewise'],
    [['--disable-prefill-cuda-graph', '--cuda-graph-backend-prefill', 'full'], 'full'],
    [[], undefined],
    [['--cuda-graph-backend-prefill', 'breakable', '--cuda-graph-config', '$GRAPHS'], undefined],
  ];
  for (const [extra, backend] of cases) {
    const g = prefillCudaGraph(launch('0.5.18', ...extra));
    assert.equal(g.layout, 'backend', extra.join(' '));
    assert.equal(g.layout === 'backend' ? g.backend : 'none', backend, extra.join(' '));
  }
  const unnamed = launch('0.5.18');
  assert.equal(breakableCudaGraph().check(unnamed).status, 'unknown');
  assert.equal(piecewiseCudaGraph().check(unnamed).status, 'unknown');
  assert.equal(breakableCudaGraph().check(launch('0.5.18', '--enable-breakable-cuda-graph')).status, 'met');
  assert.equal(piecewiseCudaGraph().check(launch('0.5.18', '--enable-breakable-cuda-graph')).status, 'not-met');
  assert.equal(piecewiseCudaGraph().check(launch('0.5.18', '--cuda-graph-backend-prefill', 'tc_piecewise')).status, 'met');
});

test('0.5.12: the booleans, read as before', () => {
  assert.equal(prefillCudaGraph(launch('0.5.12')).layout, 'booleans');
  assert.equal(breakableCudaGraph().check(launch('0.5.12', '--enable-breakable-cuda-graph')).status, 'met');
  assert.equal(breakableCudaGraph().check(launch('0.5.12')).status, 'not-met');
  assert.equal(piecewiseCudaGraph().check(launch('0.5.12', '--disable-piecewise-cuda-graph')).status, 'not-met');
});

test('a renamed field is read under its old name in every release (mamba_scheduler_strategy → mamba_radix_cache_strategy)', () => {
  for (const [version, flag] of [
    ['0.5.12', '--mamba-scheduler-strategy'],
    ['0.5.18', '--mamba-scheduler-strategy'],
    ['0.5.18', '--mamba-radix-cache-strategy'],
  ]) {
    const v = sglArg(launch(version, flag, 'extra_buffer_lazy'), 'mamba_scheduler_strategy');
    assert.deepEqual([v.value, v.source], ['extra_buffer_lazy', 'written'], `${version} ${flag}`);
  }
  assert.deepEqual(sglArg(launch('0.5.18'), 'mamba_scheduler_strategy').value, 'auto');
});
