/**
 * `faultline engine serve` under abuse, over real sockets: bad flags (exit 2 before binding),
 * malformed and mistyped bodies, huge bodies, a client that disconnects mid-stream, and SIGTERM
 * while requests stream. The server must answer with an error or exit cleanly — never crash, never hang.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';

const metric = (text: string, name: string, labels = '') => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')}\\{[^}]*${labels}[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);

describe('bad flags exit 2 with a hint, before binding', () => {
  for (const [name, flags, re] of [
    ['unknown flag', ['--no-such-flag'], /unknown vLLM flag/],
    ['unsupported KV dtype', ['--kv-cache-dtype', 'fp8_e5m2'], /not implemented/],
    ['unimplemented drafter', ['--speculative-config', '{"method": "eagle3", "num_speculative_tokens": 3}'], /eagle3 is not implemented/],
    ['bad max-num-seqs', ['--max-num-seqs', '0'], /max-num-seqs must be an integer/],
    ['a step budget no prompt fits whole, chunking off', ['--max-num-batched-tokens', '512', '--no-enable-chunked-prefill'], /smaller than max_model_len 2048/],
    ['a KV budget below one longest sequence', ['--num-gpu-blocks-override', '100'], /cannot hold one sequence of max_model_len \(2048/],
    ['an unknown stateful fault model', ['--stateful-fault-model', 'stale-prefix-hash,no-such-fault'], /no-such-fault is not a stateful fault model/],
  ] as const)
    test(name, async () => {
      const r = await runCli(['engine', 'serve', '--port', '0', ...flags]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, re);
      assert.match(r.stderr, /hint: /);
      assert.doesNotMatch(r.stdout, /listening/);
    });
});

describe('bad requests over a socket', () => {
  let server: ServerProcess;
  before(async () => (server = await startServer(['--model', 'models/tiny-swa', '--max-request-body-bytes', '100000'])));
  after(() => server?.stop());

  const postRaw = (path: string, body: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  test('malformed JSON and wrong types → 400 JSON errors; the server stays healthy', async () => {
    for (const body of ['{"prompt":', '{"prompt": "x", "max_tokens": "many"}', '{"messages": [{"role": 1}]}', 'null', '"text"']) {
      const r = await postRaw(body.includes('messages') ? '/v1/chat/completions' : '/v1/completions', body);
      assert.equal(r.status, 400, body);
      const j = (await r.json()) as { error: { code: number; message: string } };
      assert.equal(j.error.code, 400);
    }
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });

  test('huge bodies → 413, with or without a content-length', async () => {
    const big = JSON.stringify({ prompt: 'x'.repeat(5_000_000) });
    const r = await postRaw('/v1/completions', big);
    assert.equal(r.status, 413);
    // chunked upload (no content-length): the cap applies while reading
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      req.write('{"prompt": "');
      let sent = 0;
      const pump = () => {
        while (sent < 40 && req.write(chunk)) sent++;
        if (sent < 40) req.once('drain', pump);
        else req.end('"}');
      };
      pump();
    });
    assert.equal(status, 413);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });

  test('a client that disconnects mid-stream aborts its generation', async () => {
    const ac = new AbortController();
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'The sea', max_tokens: 1500, ignore_eos: true, temperature: 0, stream: true }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.read();
    ac.abort();
    let aborted = NaN;
    let running = NaN;
    for (let i = 0; i < 100; i++) {
      const m = await (await fetch(`${server.url}/metrics`)).text();
      aborted = metric(m, 'vllm:request_success_total', 'finished_reason="abort"');
      running = metric(m, 'vllm:num_requests_running');
      if (aborted >= 1 && running === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(aborted, 1);
    assert.equal(running, 0);
    const m = await (await fetch(`${server.url}/metrics`)).text();
    assert.ok(metric(m, 'vllm:generation_tokens_total') < 1500, 'generation went on after the disconnect');
  });
});

describe('SIGTERM under load', () => {
  test('streams in flight are finished or aborted, the process exits 0', async () => {
    const server = await startServer(['--model', 'models/tiny-swa', '--shutdown-timeout', '1']);
    const streams = [0, 1, 2, 3].map(async (i) => {
      try {
        const res = await fetch(`${server.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `Stream ${i}`, max_tokens: 1500, ignore_eos: true, temperature: 0, stream: true }),
        });
        return { status: res.status, body: await res.text() };
      } catch (e) {
        return { status: -1, body: String(e) };
      }
    });
    await new Promise((r) => setTimeout(r, 1500));
    const t0 = Date.now();
    server.child.kill('SIGTERM');
    const { code, signal } = await server.exited;
    assert.equal(code, 0, server.stderr());
    assert.equal(signal, null);
    assert.ok(Date.now() - t0 < 10_000, 'shutdown took too long');
    for (const s of await Promise.all(streams)) {
      // each stream ended: either cleanly with a final chunk + [DONE], or the connection was closed
      if (s.status === 200) {
        assert.match(s.body, /data: \[DONE\]\n\n$/);
        assert.match(s.body, /"finish_reason":"(abort|length)"/);
      } else assert.equal(s.status, -1);
    }
    assert.match(server.stderr(), /SIGTERM: shutting down/);
  });
});
