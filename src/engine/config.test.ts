import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUserError } from '../core/errors.js';
import { parseModelConfig, smScale, windowLeft } from './config.js';

// the config.json of docs/model-format.md
const tinySwa = {
  architectures: ['FaultlineTinySwaForCausalLM'], model_type: 'faultline_tiny_swa',
  vocab_size: 258, bos_token_id: 256, eos_token_id: 257,
  hidden_size: 256, intermediate_size: 768, num_hidden_layers: 6,
  num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64,
  layer_types: ['sliding_attention', 'sliding_attention', 'sliding_attention', 'sliding_attention', 'sliding_attention', 'full_attention'],
  sliding_window: 128, rope_theta: 1000000.0, rope_local_base_freq: 10000.0,
  query_pre_attn_scalar: 64, rms_norm_eps: 1e-6, final_logit_softcapping: null,
  max_position_embeddings: 2048, tie_word_embeddings: true, torch_dtype: 'bfloat16',
  num_nextn_predict_layers: 1,
  quantization_config: { quant_method: 'compressed-tensors',
    kv_cache_scheme: { num_bits: 8, type: 'float', strategy: 'tensor', dynamic: false, symmetric: true } },
};

test('the documented tiny-swa config parses to the facts the engine uses', () => {
  const c = parseModelConfig(tinySwa, 'config.json');
  assert.equal(c.layerTypes.filter((t) => t === 'sliding').length, 5);
  assert.equal(windowLeft(c, 0), 127);
  assert.equal(windowLeft(c, 5), -1);
  assert.equal(smScale(c), 0.125);
  assert.equal(c.declaresFp8KvCache, true);
  assert.equal(c.numMtpLayers, 1);
  assert.equal(parseModelConfig({ ...tinySwa, quantization_config: undefined }, 'c').declaresFp8KvCache, false);
});

test('bad configs are UserErrors naming the file and field', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ layer_types: ['sliding_attention'] }, /"layer_types" must be an array of num_hidden_layers \(6\)/],
    [{ layer_types: [...tinySwa.layer_types.slice(0, 5), 'chunked_attention'] }, /layer_types\[5\]/],
    [{ num_key_value_heads: 3 }, /must divide num_attention_heads/],
    [{ head_dim: 63 }, /must be even/],
    [{ sliding_window: undefined }, /"sliding_window"/],
    [{ hidden_size: '256' }, /"hidden_size" must be a non-negative integer/],
    [{ tie_word_embeddings: false }, /tie_word_embeddings/],
    [{ final_logit_softcapping: -1 }, /final_logit_softcapping/],
  ];
  for (const [over, re] of cases)
    assert.throws(() => parseModelConfig({ ...tinySwa, ...over }, 'models/x/config.json'), (e) => isUserError(e) && re.test(e.message) && e.message.startsWith('models/x/config.json'), JSON.stringify(over));
  assert.throws(() => parseModelConfig([], 'c.json'), /expected a JSON object/);
});
