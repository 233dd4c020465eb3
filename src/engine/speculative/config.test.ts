import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../../core/errors.js';
import { tokensFromArgv } from '../../deployment/argv-token.js';
import { parseVllmArgs } from '../../deployment/vllm-args.js';
import { resolveSpecConfig } from './config.js';

const mtpModel = { numMtpLayers: 1, hasMtpHead: true };
const parse = (flags: string[], model = mtpModel) =>
  resolveSpecConfig(parseVllmArgs(tokensFromArgv(flags, 'argv'), { baseDir: '.' }).args.get('speculative_config'), model);

test('absent → null; JSON and dotted keys give the same config', () => {
  assert.equal(parse([]), null);
  const a = parse(['--speculative-config', '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 3}']);
  const b = parse(['--speculative-config.method=ngram', '--speculative-config.num_speculative_tokens=4', '--speculative-config.prompt_lookup_max=3']);
  assert.deepEqual(a, b);
  assert.equal(a?.promptLookupMin, 3); // min defaults to max
  assert.equal(a?.promptLookupMax, 3);
});

test("vLLM's defaults: ngram 5/5, suffix k = max_tree_depth, mtp k = n_predict; legacy MTP names are mtp", () => {
  const n = parse(['--speculative-config', '{"method": "ngram", "num_speculative_tokens": 2}'])!;
  assert.deepEqual([n.promptLookupMin, n.promptLookupMax], [5, 5]);
  const s = parse(['--speculative-config', '{"method": "suffix"}'])!;
  assert.equal(s.numSpeculativeTokens, 24);
  assert.deepEqual(s.suffix, { maxTreeDepth: 24, maxSpecFactor: 1, minTokenProb: 0.1 });
  const m = parse(['--speculative-config', '{"method": "gemma4_mtp"}'])!;
  assert.equal(m.method, 'mtp');
  assert.equal(m.numSpeculativeTokens, 1);
  assert.match(m.notes.join('\n'), /deprecated and replaced with mtp/);
});

test('errors name the key and where it was written', () => {
  const err = (flags: string[], re: RegExp, model = mtpModel) =>
    assert.throws(() => parse(flags, model), (e: unknown) => e instanceof UserError && re.test(e.message) && e.hint !== undefined);
  err(['--speculative-config', '{"method": "eagle3", "num_speculative_tokens": 3}'], /eagle3 is not implemented/);
  err(['--speculative-config', '{"method": "ngram"}'], /num_speculative_tokens must be provided/);
  err(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 0}'], /integer ≥ 1|must be greater than 0/);
  err(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 129}'], /exceeds the rejection sampler/);
  err(['--speculative-config', '{"method": "mtp", "model": "x"}'], /speculative_config.model is not implemented/);
  err(['--speculative-config', '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2}'], /prompt_lookup_min/);
  err(['--speculative-config', '{"method": "mtp"}'], /needs an MTP head/, { numMtpLayers: 0, hasMtpHead: false });
  const e = (() => {
    try {
      parse(['--speculative-config.method=mtp', '--speculative-config.num_speculative_tokens=x']);
    } catch (x) {
      return x as UserError;
    }
  })();
  assert.equal(e?.at?.file, 'argv');
});
