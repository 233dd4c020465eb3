/**
 * Reads Prometheus text exposition with parse-prometheus-text-format (a port of the official Python
 * client's parser, output shaped like prom2json's), so the canary's output is checked by a parser
 * that is not ours. It throws on a line it cannot read.
 */
import { createRequire } from 'node:module';

export interface ParsedFamily {
  name: string;
  help: string;
  type: 'GAUGE' | 'COUNTER' | 'UNTYPED' | 'HISTOGRAM' | 'SUMMARY';
  metrics: { value: string; labels?: Record<string, string> }[];
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => ParsedFamily[];

export function parseExposition(text: string): ParsedFamily[] {
  return parse(text);
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((f) => f.name === name);
  const matches = (family?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches.length ? Number(matches[0].value) : undefined;
}
