/**
 * A launch of a release newer than faultline's tables (or of an unknown version) that uses a flag,
 * choice, JSON sub-key or sub-key value the tables lack: FL000 "possibly" (a warning), the value
 * read as written, and every other hazard still checked — for vLLM and for SGLang. With the
 * launch's own release the same problem is certain; `--allow-unknown-flags` turns it into a note.
 * The vLLM values are ones newer releases added (research/field-2026-12-round3.md §2.1:
 * --prefix-cache-retention-interval, the nvfp4_4over6 KV dtype, the draft-only kv_cache_dtype and the
 * 'block' rejection sampler of --speculative-config); the SGLang ones are not in any table here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isUserError } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import { deploymentFromArgv } from '../../deployment/load.js';
import { lintDeployments } from '../evaluate.js';
import type { Finding } from '../finding.js';
import { packageRoot } from '../../core/package-root.js';

/** The seed's launch (examples/seed-b200/serve.sh): FL001 applies on a B200 with a sliding-window model. */
const SEED = [
  'vllm',
  'serve',
  'nvidia/Gemma-4-31B-IT-NVFP4',
  '--attention-backend',
  'FLASHINFER',
  '--kv-cache-dtype',
  'fp8_e4m3',
  '--attention-config',
  '{"disable_flashinfer_q_quantization": true}',
];
const spec = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    method: 'mtp',
    model: 'google/gemma-4-31B-it-assistant',
    num_speculative_tokens: 7,
    ...extra,
  });

function vllm(
  extra: string[],
  opts: { version?: string; allowUnknown?: boolean; speculative?: Record<string, unknown> } = {},
): Deployment {
  return deploymentFromArgv([...SEED, '--speculative-config', spec(opts.speculative), ...extra], {
    cwd: '/',
    gpu: 'NVIDIA B200',
    modelConfig: join(packageRoot, 'examples/seed-b200/config.json'),
    ...(opts.version ? { vllmVersion: opts.version } : {}),
    ...(opts.allowUnknown ? { allowUnknownFlags: true } : {}),
  });
}

const byId = (findings: Finding[], id: string) => findings.find((f) => f.hazard.id === id);

const VLLM_CASES: {
  what: string;
  extra: string[];
  speculative?: Record<string, unknown>;
  kind: string;
  option: string;
  value?: string;
}[] = [
  {
    what: 'a flag',
    extra: ['--prefix-cache-retention-interval', '0'],
    kind: 'unknown',
    option: '--prefix-cache-retention-interval',
  },
  {
    what: 'a choice',
    extra: ['--moe-backend', 'flashinfer_nextgen'],
    kind: 'choice',
    option: '--moe-backend',
    value: 'flashinfer_nextgen',
  },
  {
    what: 'a JSON sub-key',
    extra: [],
    speculative: { kv_cache_dtype: 'fp8' },
    kind: 'sub-key',
    option: 'speculative_config.kv_cache_dtype',
  },
  {
    what: 'a sub-key value',
    extra: [],
    speculative: { rejection_sample_method: 'block' },
    kind: 'sub-key-value',
    option: 'speculative_config.rejection_sample_method',
    value: 'block',
  },
];

for (const c of VLLM_CASES) {
  test(`vLLM newer than the tables or of unknown version, ${c.what} the tables lack: FL000 possibly, and the seed's FL001 still fires`, () => {
    for (const version of ['0.31.0', undefined]) {
      const d = vllm(c.extra, {
        ...(version ? { version } : {}),
        ...(c.speculative ? { speculative: c.speculative } : {}),
      });
      assert.deepEqual(
        (d.flagProblems ?? []).map((p) => [p.kind, p.option, p.value]),
        [[c.kind, c.option, c.value]],
        String(version),
      );
      const findings = lintDeployments([d]);
      const fl000 = byId(findings, 'FL000');
      assert.equal(fl000?.severity, 'warning');
      assert.equal(fl000?.possibly, true, String(version));
      assert.match(fl000?.conditions[0].detail ?? '', new RegExp(c.option.replace(/[.]/g, '\\.')));
      assert.match(
        fl000?.conditions[0].detail ?? '',
        /the rest of the launch is checked with the value as written/,
      );
      assert.ok(byId(findings, 'FL001'), `FL001 still found (${String(version)})`);
    }
    // --allow-unknown-flags: a note, no FL000; the hazards are the same.
    const allowed = vllm(c.extra, {
      version: '0.31.0',
      allowUnknown: true,
      ...(c.speculative ? { speculative: c.speculative } : {}),
    });
    assert.deepEqual(allowed.flagProblems, []);
    assert.ok(allowed.notes.some((n) => n.value.includes(c.option)));
    const findings = lintDeployments([allowed]);
    assert.equal(byId(findings, 'FL000'), undefined);
    assert.ok(byId(findings, 'FL001'));
  });
}

test("vLLM: with the launch's own release the same flag is certain (FL000 met); a choice that release lacks is vLLM's own error (exit 2)", () => {
  const flag = lintDeployments([vllm(['--prefix-cache-retention-interval', '0'], { version: '0.27.1' })]);
  assert.equal(byId(flag, 'FL000')?.possibly, false);
  assert.ok(byId(flag, 'FL001'));
  assert.throws(
    () => vllm(['--kv-cache-dtype', 'nvfp4_4over6'], { version: '0.27.1' }),
    (e: unknown) => isUserError(e) && /invalid choice 'nvfp4_4over6'/.test(e.message),
  );
  // The same KV dtype on a newer release: possibly, read as written.
  const newer = vllm(['--kv-cache-dtype', 'nvfp4_4over6'], { version: '0.32.0' });
  assert.equal(newer.args.get('kv_cache_dtype')?.value, 'nvfp4_4over6');
  assert.equal(byId(lintDeployments([newer]), 'FL000')?.possibly, true);
});

test('vLLM: a value no release accepts (the wrong kind) and malformed JSON are still input errors whatever the version', () => {
  for (const version of ['0.31.0', undefined]) {
    const opts = version ? { version } : {};
    assert.throws(
      () => vllm(['--max-model-len', 'banana'], opts),
      (e: unknown) => isUserError(e) && /invalid int value/.test(e.message),
    );
    assert.throws(
      () => vllm([], { ...opts, speculative: { num_speculative_tokens: 'seven' } }),
      (e: unknown) => isUserError(e) && /is not an integer/.test(e.message),
    );
    assert.throws(
      () => vllm(['--compilation-config', '{"mode": 3,'], opts),
      (e: unknown) => isUserError(e) && /invalid JSON/.test(e.message),
    );
  }
});

/** An SGLang launch with a hazard of its own (examples/sglang-b200): FL208 on a B200 with an FP8 KV cache. */
const SGLANG = [
  'python3',
  '-m',
  'sglang.launch_server',
  '--model-path',
  'meta-llama/Llama-3.1-70B-Instruct-FP8',
  '--tp',
  '4',
  '--kv-cache-dtype',
  'fp8_e4m3',
];

function sglang(extra: string[], opts: { version?: string; allowUnknown?: boolean } = {}): Deployment {
  return deploymentFromArgv([...SGLANG, ...extra], {
    cwd: '/',
    gpu: 'NVIDIA B200',
    ...(opts.version ? { sglangVersion: opts.version } : {}),
    ...(opts.allowUnknown ? { allowUnknownFlags: true } : {}),
  });
}

const SGLANG_CASES: {
  what: string;
  extra: string[];
  kind: string;
  option: string;
  value?: string;
  field: string;
  kept: unknown;
}[] = [
  // --dsv4-attn-backend: a live SGLang flag (research §2.2, sglang PR#30805) newer than every table here.
  {
    what: 'a flag',
    extra: ['--dsv4-attn-backend', 'trtllm'],
    kind: 'unknown',
    option: '--dsv4-attn-backend',
    field: 'dsv4_attn_backend',
    kept: 'trtllm',
  },
  {
    what: 'a choice',
    extra: ['--schedule-policy', 'hrrn'],
    kind: 'choice',
    option: '--schedule-policy',
    value: 'hrrn',
    field: 'schedule_policy',
    kept: 'hrrn',
  },
];

for (const c of SGLANG_CASES) {
  test(`SGLang newer than the tables or of unknown version, ${c.what} the tables lack: FL000 possibly, read as written, the rest checked`, () => {
    for (const version of ['0.5.21', undefined]) {
      const d = sglang(c.extra, version ? { version } : {});
      assert.equal(d.engine, 'sglang');
      assert.deepEqual(
        (d.flagProblems ?? []).map((p) => [p.kind, p.option, p.value]),
        [[c.kind, c.option, c.value]],
      );
      assert.equal(d.args.get(c.field)?.value, c.kept);
      const findings = lintDeployments([d]);
      assert.equal(byId(findings, 'FL000')?.possibly, true, String(version));
      assert.equal(byId(findings, 'FL000')?.severity, 'warning');
      assert.ok(byId(findings, 'FL208'), `FL208 still found (${String(version)})`);
    }
    const allowed = sglang(c.extra, { version: '0.5.21', allowUnknown: true });
    assert.deepEqual(allowed.flagProblems, []);
    assert.ok(allowed.notes.some((n) => n.value.includes(c.option)));
    assert.equal(byId(lintDeployments([allowed]), 'FL000'), undefined);
  });
}

test("SGLang: with the launch's own release line the same problem is certain (FL000 met)", () => {
  const d = sglang(['--schedule-policy', 'hrrn'], { version: '0.5.6.post2' });
  assert.equal(d.flagTable?.authoritative, true);
  assert.equal(byId(lintDeployments([d]), 'FL000')?.possibly, false);
});

test("SGLang: JSON flags' sub-keys are free-form in SGLang's server_args (json.loads), so no sub-key is an FL000 and none is an error", () => {
  const d = sglang(['--mm-process-config', '{"image": {"max_pixels": 100}, "video_next_year": {"fps": 2}}'], {
    version: '0.5.21',
  });
  assert.deepEqual(d.flagProblems, []);
  assert.deepEqual(d.args.get('mm_process_config')?.value, {
    image: { max_pixels: 100 },
    video_next_year: { fps: 2 },
  });
});
