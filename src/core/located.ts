import type { SourceLocation } from './errors.js';

/** A value together with where it came from, so findings can point at file:line:col. */
export interface Located<T> {
  value: T;
  at?: SourceLocation;
}

export function located<T>(value: T, at?: SourceLocation): Located<T> {
  return at ? { value, at } : { value };
}
