import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL009 } from './FL009-reasoning-structured-output-specdec.js';
import { withArgs, type BuildOptions } from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

const base: BuildOptions = {
  model: 'Qwen/Qwen3.5-35B-A3B',
  args: {
    reasoning_parser: 'qwen3',
    enable_auto_tool_choice: true,
    tool_call_parser: 'qwen3_coder',
    speculative_config: { method: 'mtp', num_speculative_tokens: 3 },
  },
};

test('reasoning parser + tool calling + MTP fires FL009 (warning) at the reasoning parser', () => {
  const f = assertFiresFully(FL009, base);
  assert.equal(f.severity, 'warning');
  assert.equal(f.location.line, 2);
});

test('without tool calling, structured output is request-level: possibly affected', () => {
  const f = fire(FL009, withArgs(base, { enable_auto_tool_choice: undefined, tool_call_parser: undefined }));
  assert.equal(f?.possibly, true);
});
