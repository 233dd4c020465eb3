/**
 * The one place that loads node-llama-cpp, lazily: lint, guard, plan and the faultline runtime never
 * reach this import (test: src/llama-cpp/lazy-load.test.ts). It is an optional dependency, so a
 * missing install is a UserError with the command that fixes it, not a module-not-found stack.
 */
import { UserError } from '../core/errors.js';

export type NodeLlamaCpp = typeof import('node-llama-cpp');

/** The exact version faultline is tested with (newer releases change option names and break `npm ci` here). */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

let loaded: Promise<NodeLlamaCpp> | null = null;

export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  loaded ??= import('node-llama-cpp').catch((e: unknown) => {
    loaded = null;
    throw new UserError(
      `the llama.cpp runtime needs node-llama-cpp, which is not installed (${(e as Error).message.split('\n')[0]})`,
      {
        code: 'E_RUNTIME_MISSING',
        hint: `install it beside faultline: npm install --save-exact node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
      },
    );
  });
  return loaded;
}
