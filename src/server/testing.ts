/** A small in-process server on a random model, for tests (not a substitute for the trained model). */
import { presetSettings } from '../engine/emulate.js';
import { randomModel, tinyConfig } from '../engine/testing/random-init.js';
import type { SpecConfig } from '../engine/speculative/config.js';
import { buildServer, type BuiltServer, type ServerConfig } from './build.js';

export const testModel = randomModel(tinyConfig({ maxPositions: 256 }), { seed: 7, std: 0.08 });

export function testServer(over: Partial<ServerConfig> & { spec?: SpecConfig | null } = {}): BuiltServer {
  return buildServer({
    model: testModel,
    modelId: 'tiny-test',
    settings: { attention: presetSettings('reference'), precision: 'bf16', kvDtype: 'bf16', pageSize: 16, maxModelLen: 256 },
    spec: null,
    maxNumSeqs: 8,
    ...over,
  });
}

/** Response JSON as tests read it (indexed freely; the assertions are the type check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** POSTs JSON to the app in-process. */
export async function post(b: BuiltServer, path: string, body: unknown, init: RequestInit = {}): Promise<{ status: number; json: Json; text: string }> {
  const res = await b.app.request(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' }, ...init });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // SSE or plain text
  }
  return { status: res.status, json, text };
}

/** The JSON payloads of an SSE body (without [DONE]); asserts that [DONE] ends it. */
export function sseEvents(text: string): Json[] {
  const data = text
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => b.slice(6));
  if (data[data.length - 1] !== '[DONE]') throw new Error(`SSE stream does not end with [DONE]: ${text.slice(-200)}`);
  return data.slice(0, -1).map((d) => JSON.parse(d));
}
