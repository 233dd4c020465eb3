/** A kernel verification: the two error maps, the controls table, the per-dump table with the scale audit. */
import { basename, dirname } from 'node:path';
import type { KernelData } from '../data.js';
import { html, type SafeHtml } from '../escape.js';
import { alignmentChart, rowHeadChart } from '../specs/kernel.js';
import { figure, type Draw } from './figure.js';
import { badge, table } from './tables.js';

const num = (x: number | string, digits = 3) => (typeof x === 'number' ? (x === 0 ? '0' : Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? x.toPrecision(digits) : x.toExponential(2)) : x);

/** Dumps by file name; the directory and the kernel, when all share them, are said once above the table. */
function dumpsTable(k: KernelData): SafeHtml {
  const dirs = new Set(k.dumps.map((d) => dirname(d.file)));
  const kernels = new Set(k.dumps.map((d) => d.kernel));
  const oneDir = dirs.size === 1 ? [...dirs][0] : undefined;
  const oneKernel = kernels.size === 1 ? [...kernels][0] : undefined;
  const headers = ['dump', ...(oneKernel ? [] : ['kernel']), 'Q / KV', 'window_left', 'q_len', 'page', 'wrong pairs', 'max |err|', 'scales (logits ×, output ×)', ''];
  return html`${oneDir ? html`<p class="muted">In <code>${oneDir}</code>${oneKernel ? html`; kernel: ${oneKernel}` : ''}.</p>` : oneKernel ? html`<p class="muted">Kernel: ${oneKernel}.</p>` : ''}
${table(
  headers,
  k.dumps.map((d) => [
    html`<code>${oneDir ? basename(d.file) : d.file}</code>`,
    ...(oneKernel ? [] : [html`<span class="small">${d.kernel}</span>`]),
    `${d.qDtype} / ${d.kvDtype}`,
    String(d.windowLeft),
    String(d.qLenPerReq),
    String(d.pageSize),
    String(d.faultyPairs),
    num(d.maxAbsError),
    d.scalesConsistent ? 'consistent' : html`<b>${num(d.logitsFactor)}, ${num(d.outputFactor)}</b>`,
    badge(d.ok ? 'ok' : 'wrong', d.ok ? 'pass' : 'corrupt'),
  ]),
  'dumps',
)}`;
}

export async function kernelSection(k: KernelData, index: number, draw: Draw): Promise<SafeHtml> {
  const alignment = k.alignment.length ? await draw(alignmentChart(k, index)) : undefined;
  const rowHead = k.rowHead.length ? await draw(rowHeadChart(k, index)) : undefined;
  const failing = k.dumps.filter((d) => !d.ok).length;
  return html`<section class="kernel" id="kernel-${index + 1}"><h2>Kernel verification <span class="source">${k.source}</span></h2>
<p>${badge(k.ok ? 'MATCHES' : 'WRONG', k.ok ? 'pass' : 'corrupt')} ${k.dumps.length} dumps against the reference attention (tolerance ${k.tolerance}): ${failing} with errors.
${k.hypotheses.length ? `Wrong key ranges that reproduce the faulty pairs: ${k.hypotheses.map((h) => `${h.name} (${h.pairs} pairs)`).join(', ')}.` : ''}</p>
<h3>Controls</h3>
${table(
  ['condition', 'what it holds', 'requests', 'wrong', 'verdict'],
  k.controls.map((c) => [c.name, c.condition, String(c.requests), String(c.failing), badge(c.verdict, c.verdict === 'errors' ? 'corrupt' : c.verdict === 'clean' ? 'pass' : 'muted')]),
  'controls',
)}
${alignment ? figure(alignment) : html`<p>No windowed dumps: no alignment map.</p>`}
${rowHead ? figure(rowHead) : ''}
<h3>Dumps</h3>
${dumpsTable(k)}
</section>`;
}
