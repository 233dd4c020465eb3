/**
 * `--batch-variant-numerics` end to end (trained model): the same request alone and concurrently
 * with another gets slightly different log-probabilities (measured and printed), while most greedy
 * outputs stay identical — the benign, batch-dependent drift of real servers that oracles must not
 * call corruption. Without the flag, concurrency changes nothing (test/e2e/server.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { startServer, type ServerProcess } from './server-harness.js';

let server: ServerProcess;
before(async () => (server = await startServer(['--model', 'models/tiny-swa', '--batch-variant-numerics'])));
after(() => server?.stop());

interface Out {
  ids: number[];
  logprobs: number[];
}
async function complete(prompt: number[]): Promise<Out> {
  const res = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, max_tokens: 32, temperature: 0, ignore_eos: true, logprobs: 0, return_token_ids: true }),
  });
  const j = (await res.json()) as { choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[] };
  return { ids: j.choices[0].token_ids, logprobs: j.choices[0].logprobs.token_logprobs };
}

test('concurrent vs alone: logprobs differ slightly, most greedy outputs are identical', async () => {
  const text = readFileSync(join(repoRoot, 'data/heldout-prose.txt'));
  let identical = 0;
  let total = 0;
  let maxDiff = 0;
  let changed = 0;
  for (let k = 0; k < 6; k++) {
    const a = [256, ...text.subarray(k * 20000, k * 20000 + 50)];
    const b = [256, ...text.subarray(k * 20000 + 7000, k * 20000 + 7000 + 31)];
    const alone = [await complete(a), await complete(b)];
    const both = await Promise.all([complete(a), complete(b)]);
    for (let i = 0; i < 2; i++) {
      total++;
      const first = both[i].ids.findIndex((t, j) => t !== alone[i].ids[j]);
      if (first < 0) identical++;
      for (let j = 0; j < (first < 0 ? 32 : first + 1); j++) {
        const d = Math.abs(both[i].logprobs[j] - alone[i].logprobs[j]);
        maxDiff = Math.max(maxDiff, d);
        if (d > 0) changed++;
      }
    }
  }
  console.log(`batch-variant numerics: ${identical}/${total} greedy outputs identical; ${changed} logprobs changed, max |Δlogprob| ${maxDiff.toExponential(2)} (before any divergence)`);
  assert.ok(changed > 0, 'logprobs never changed: the flag had no effect');
  assert.ok(maxDiff < 1, `|Δlogprob| up to ${maxDiff}: not a small drift`);
  assert.ok(identical * 2 >= total, `only ${identical}/${total} outputs identical`);
});
