import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelFamilyFromName } from './model-family.js';

/** The name rule, pinned: [model argument, family, runs as MLA] — undefined family: the name decides nothing. */
const TABLE: [string, string | undefined, boolean | undefined][] = [
  ['deepseek-ai/DeepSeek-R1-Distill-Llama-70B', 'llama', false],
  ['deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', 'qwen', false],
  ['neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic', 'llama', false],
  ['deepseek-ai/DeepSeek-R1', 'deepseek', true],
  ['deepseek-ai/DeepSeek-R1-0528', 'deepseek', true],
  ['deepseek-ai/DeepSeek-V3.2-Exp', 'deepseek', true],
  ['deepseek-ai/DeepSeek-V2-Lite-Chat', 'deepseek', true],
  ['deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct', 'deepseek', true],
  ['deepseek-ai/deepseek-llm-7b-chat', 'llama', false],
  ['deepseek-ai/deepseek-coder-6.7b-instruct', 'llama', false],
  ['moonshotai/Kimi-K2-Instruct', 'kimi_k2', true],
  ['zai-org/GLM-5', 'glm_moe_dsa', true],
  ['meituan-longcat/LongCat-Flash-Chat', 'longcat_flash', true],
  ['meta-llama/Llama-3.1-8B-Instruct', 'llama', false],
  ['Qwen/Qwen3-0.6B', 'qwen', false],
  ['mistralai/Mixtral-8x7B-Instruct-v0.1', 'mistral', false],
  ['google/gemma-3-27b-it', 'gemma', false],
  ['microsoft/Phi-4-mini-instruct', 'phi', false],
  ['openai/gpt-oss-120b', 'gpt_oss', false],
  ['facebook/opt-125m', 'opt', false],
  [
    '/data/hub/models--meta-llama--Llama-3.1-70B-Instruct/snapshots/1605565b47bb9346c5515c34102e054115b4f98b',
    'llama',
    false,
  ],
  ['/models/my-finetune', undefined, undefined],
  ['$MODEL', undefined, undefined],
  ['/mnt/models', undefined, undefined],
];

test('a model family from its name follows the pinned rule', () => {
  for (const [name, family, mla] of TABLE) {
    const f = modelFamilyFromName(name);
    assert.equal(f?.family, family, name);
    assert.equal(f?.mla, mla, name);
  }
});

test('a distilled model is its student: the teacher named first does not make it MLA', () => {
  const f = modelFamilyFromName('DeepSeek-R1-Distill-Llama-8B');
  assert.match(f?.why ?? '', /distilled into a llama architecture/);
});
