/** Reading a JSON request body: malformed JSON is a 400 that says so, never a stack trace. */
import type { Context } from 'hono';
import { badRequest } from './errors.js';

export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') throw badRequest('the request body is empty; expected a JSON object');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`malformed JSON in the request body: ${(e as Error).message}`);
  }
}

export const newRequestId = (prefix: string) => `${prefix}-${crypto.randomUUID().replace(/-/g, '')}`;
export const unixNow = () => Math.floor(Date.now() / 1000);
