/** Reasoning parsers and structured output / tool calling (research/interaction-bugs.md B11). */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asString, show } from './args.js';

export function reasoningParser(): Condition {
  return {
    name: 'reasoning-parser',
    description: 'a reasoning parser splits thinking from the answer (--reasoning-parser)',
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'reasoning_parser');
      const name = asString(a?.value);
      return name
        ? { status: 'met', detail: `--reasoning-parser ${name}`, at: a?.at }
        : { status: 'not-met', detail: 'no --reasoning-parser' };
    },
  };
}

export function constrainedOutput(): Condition {
  return {
    name: 'structured-output',
    description:
      'clients get grammar-constrained output: tool calling is enabled, or requests ask for JSON / a schema',
    check(d: Deployment): ConditionResult {
      const auto = arg(d, 'enable_auto_tool_choice');
      if (auto && asBool(auto.value) === true)
        return {
          status: 'met',
          detail: '--enable-auto-tool-choice: tool calls are constrained output',
          at: auto.at,
        };
      const parser = arg(d, 'tool_call_parser');
      if (parser && asString(parser.value))
        return { status: 'met', detail: `--tool-call-parser ${show(parser.value)}`, at: parser.at };
      return {
        status: 'unknown',
        detail:
          'requests can ask for response_format / JSON-schema output at any time; the launch cannot tell whether they do',
      };
    },
  };
}
