/**
 * The Prometheus text exposition format, version 0.0.4 (the format every Prometheus and
 * node-exporter textfile collector reads): per family a HELP and a TYPE line, then its samples,
 * grouped; label values escaped (\\ \" \n), HELP text escaped (\\ \n), NaN / +Inf / -Inf spelt as
 * the format spells them, a newline after the last line.
 */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function formatLabels(labels: Record<string, string>): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  for (const k of keys)
    if (!LABEL_NAME.test(k) || k.startsWith('__')) throw new Error(`invalid Prometheus label name ${k}`);
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k])}"`).join(',')}}`;
}

export function renderExposition(families: readonly Family[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const f of families) {
    if (!METRIC_NAME.test(f.name)) throw new Error(`invalid Prometheus metric name ${f.name}`);
    if (seen.has(f.name)) throw new Error(`metric family ${f.name} rendered twice`);
    seen.add(f.name);
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) lines.push(`${f.name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
  }
  return lines.join('\n') + '\n';
}
