/**
 * A matrix run against `engine serve --api sglang` (health from /health_generate, SGLang's
 * readiness check) gives the same cells, outcomes and minimal interaction as the same plan against
 * the vLLM-shaped API: two factors over the scale defect, short probes. Slow tier (two matrix runs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.js';

function plan(api: 'vllm' | 'sglang'): string {
  const dir = mkdtempSync(join(tmpdir(), `fl-sglang-matrix-${api}-`));
  const path = join(dir, 'plan.yaml');
  writeFileSync(
    path,
    `launch:
  argv: [node, "{faultline_root}/bin/faultline.js", engine, serve, --api, ${api}, --model, "{faultline_root}/models/tiny-swa-qscale", --emulate, sm100-affected, --max-model-len, "320", --port, "{port}"]
  health: ${api === 'sglang' ? '/health_generate' : '/health'}
  ready_timeout_s: 60
  stop_timeout_s: 5
factors:
  kv_cache:
    levels:
      bf16: { argv: [--kv-cache-dtype, bfloat16] }
      fp8: { argv: [--kv-cache-dtype, fp8_e4m3] }
  q_quantization:
    levels:
      enabled:
      disabled: { json_args: { --attention-config: { disable_flashinfer_q_quantization: true } } }
strength: 2
confirm: 0
probe: { suite: short, window: 128, page_size: 16, requests: 9, max_tokens: 8, concurrency: 3, target_rate: 0.3 }
`,
  );
  return path;
}

interface MatrixJson {
  verdict: string;
  cells: { levels: Record<string, string>; outcome: string }[];
  interactions: unknown[];
}

test(
  'matrix: the same cells, outcomes and minimal interaction through both APIs',
  { timeout: 600_000 },
  async () => {
    const run = async (api: 'vllm' | 'sglang') => {
      const r = await runCli(['matrix', plan(api), '--format', 'json'], {
        cwd: repoRoot,
        timeoutMs: 300_000,
      });
      assert.notEqual(r.stdout, '', r.stderr);
      return { code: r.code, json: JSON.parse(r.stdout) as MatrixJson };
    };
    const v = await run('vllm');
    const s = await run('sglang');
    const outcomes = (m: MatrixJson) => m.cells.map((c) => `${JSON.stringify(c.levels)} ${c.outcome}`).sort();
    assert.ok(
      v.json.cells.some((c) => c.outcome === 'corrupt'),
      'the scale defect is found',
    );
    assert.deepEqual(outcomes(s.json), outcomes(v.json));
    assert.equal(s.json.verdict, v.json.verdict);
    assert.equal(s.code, v.code);
    assert.deepEqual(s.json.interactions, v.json.interactions);
  },
);
