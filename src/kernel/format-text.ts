/**
 * Plain-text reports of `faultline kernel verify` and `faultline kernel scales`: a table per dump,
 * the localized (request, row, head) pairs, the scale audit, then the characterization.
 */
import { basename } from 'node:path';
import type { Bucket, Characterization } from './characterize.js';
import type { ScaleAuditResult } from './scales.js';
import type { CaseResult } from './verify.js';

const num = (x: number, digits = 4) => (Number.isFinite(x) ? x.toPrecision(digits).replace(/\.?0+(e|$)/, '$1') : String(x));
const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

export function formatVerifyText(cases: CaseResult[], ch: Characterization, o: { maxPairs: number }): string {
  const lines: string[] = [];
  const kernels = [...new Set(cases.map((c) => `${c.kernel} (${c.kernelVersion})`))];
  lines.push(`faultline kernel verify: ${cases.length} dump(s); kernel: ${kernels.join('; ')}`);
  lines.push('');
  const w = Math.max(4, ...cases.map((c) => basename(c.file).length));
  lines.push(`${pad('dump', w)}  ${pad('q', 8)} ${pad('kv', 8)} ${lpad('window', 6)} ${lpad('q_len', 5)} ${lpad('reqs', 4)} ${lpad('max|err|', 9)} ${lpad('mismatch', 8)} ${lpad('pairs', 5)}  tolerance (atol, rtol)  status`);
  for (const c of cases) {
    const win = c.windowLeft < 0 ? 'none' : String(c.windowLeft + 1);
    const status = c.ok ? 'ok' : 'MISMATCH';
    lines.push(
      `${pad(basename(c.file), w)}  ${pad(c.qDtype, 8)} ${pad(c.kvDtype, 8)} ${lpad(win, 6)} ${lpad(c.qLenPerReq, 5)} ${lpad(c.requests.length, 4)} ${lpad(num(c.maxAbsError, 3), 9)} ${lpad(c.mismatches, 8)} ${lpad(c.faultyPairs.length, 5)}  ${pad(`${num(c.tolerance.atol, 2)}, ${num(c.tolerance.rtol, 2)}`, 22)}  ${status}${c.nonFinite ? ` (${c.nonFinite} non-finite outputs)` : ''}`,
    );
  }
  const widened = cases.filter((c) => c.dtypeBand);
  if (widened.length) {
    lines.push('', `FP8-arithmetic kernel: ${widened[0].tolerance.source}.`);
    lines.push(`  against the dtype band alone: ${widened.map((c) => `${basename(c.file)} ${c.dtypeBand!.mismatches} mismatches in ${c.dtypeBand!.faultyPairs} pairs (${num(c.dtypeBand!.tolerance.atol, 2)}, ${num(c.dtypeBand!.tolerance.rtol, 2)})`).join('; ')}`);
  }
  const failing = cases.filter((c) => !c.ok);
  if (failing.length) {
    lines.push('', 'Localized errors (request, query row, head):');
    let shown = 0;
    for (const c of failing)
      for (const p of c.faultyPairs) {
        if (shown++ >= o.maxPairs) continue;
        const seq = c.requests[p.request].seqLen;
        const why = p.matches.length ? ` — reproduced by: ${p.matches.join('; ')}` : ' — no listed hypothesis reproduces it';
        lines.push(
          `  ${basename(c.file)}: request ${p.request} (seq_len ${seq}) row ${p.row} (position ${p.position}, window start ${p.windowStart}) head ${p.head}: max|err| ${num(p.maxAbs, 3)} on |ref| ≤ ${num(p.refMaxAbs, 3)}, cosine ${num(p.cosine, 3)}, ${p.mismatches} element(s) off${p.nonFinite ? ` (${p.nonFinite} non-finite)` : ''}${why}`,
        );
      }
    if (shown > o.maxPairs) lines.push(`  … ${shown - o.maxPairs} more pair(s) (--max-pairs, or --json for all)`);
  }
  const audits = cases.filter((c) => !c.scaleAudit.consistent);
  if (audits.length) {
    lines.push('', 'Scale audit (bmm1/bmm2 in the metadata versus what these dtypes and scales require):');
    for (const c of audits) {
      const a = c.scaleAudit;
      lines.push(`  ${basename(c.file)}: bmm1 ${num(a.bmm1Given, 6)} (expected ${num(a.bmm1Expected, 6)}: logits ×${num(a.logitsFactor, 6)}), bmm2 ${num(a.bmm2Given, 6)} (expected ${num(a.bmm2Expected, 6)}: output ×${num(a.outputFactor, 6)})`);
    }
  }
  lines.push('', ...formatCharacterization(ch));
  lines.push('', failing.length ? `${failing.length} of ${cases.length} dump(s) have outputs outside tolerance` : `all ${cases.length} dump(s) within tolerance`);
  return lines.join('\n') + '\n';
}

function bucketLine(label: string, buckets: Bucket[], what: string): string {
  if (!buckets.length) return `  ${label}: (no data)`;
  return `  ${label} (${what} wrong/total): ${buckets.map((b) => `${b.key}:${b.failing}/${b.total}`).join(' ')}`;
}

export function formatCharacterization(ch: Characterization): string[] {
  const lines = ['Characterization:'];
  const w = Math.max(...ch.controls.map((c) => c.name.length));
  const trigger = ch.controls[0];
  for (const c of ch.controls) {
    const vanish = c !== trigger && c.verdict === 'clean' && trigger.failing > 0 ? ' — the error vanishes' : '';
    lines.push(`  ${pad(c.name, w)}  ${lpad(`${c.failing}/${c.requests}`, 9)} requests wrong  ${pad(c.verdict, 11)}  (${c.condition})${vanish}`);
  }
  if (ch.faultyPairs === 0) {
    lines.push('  no wrong (row, head) pair in any dump');
    return lines;
  }
  lines.push(`  alignment over ${ch.alignmentScope}:`);
  if (ch.pageSizes.length > 1) lines.push(`  note: page sizes ${ch.pageSizes.join(', ')} are mixed in the alignment tables`);
  lines.push(bucketLine('seq_len − window', ch.bySeqMinusWindow.filter((b) => b.failing > 0 || b.key >= -1), 'requests'));
  lines.push(bucketLine(`seq_len mod page`, ch.bySeqModPage, 'requests'));
  lines.push(bucketLine('window start mod page', ch.byWindowStartModPage, 'rows'));
  lines.push(bucketLine('query row', ch.byRow, '(row, head) pairs'));
  lines.push(bucketLine('head', ch.byHead, '(row, head) pairs'));
  const pct = (x: number) => `${(100 * x).toFixed(x < 0.999 && x > 0.99 ? 1 : 0)} %`;
  if (ch.mechanism) {
    const m = ch.mechanism;
    lines.push(`  mechanism: ${m.name} — explains ${m.pairs} of ${ch.pairsExamined} examined wrong pairs (${pct(m.share)})${m.ties.length ? `; as many: ${m.ties.join('; ')}` : ''}`);
    const rest = ch.hypotheses.filter((h) => h.name !== m.name && !m.ties.includes(h.name)).slice(0, 6);
    if (rest.length) lines.push(`  also reproduce some pairs: ${rest.map((h) => `${h.name} (${pct(h.share)})`).join('; ')}`);
  }
  if (ch.pairsExamined) lines.push(`  unexplained: ${ch.unexplained} of ${ch.pairsExamined} examined wrong pairs match no listed hypothesis`);
  return lines;
}

export function formatScalesText(r: ScaleAuditResult): string {
  const s = r.input;
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  const lines = [
    `scale audit: Q ${s.qDtype}, KV ${s.kvDtype}, path ${s.path} (${r.kernel}), policy ${s.policy}`,
    `scales: q ${num(s.qScale, 6)}, k ${num(s.kScale, 6)}, v ${num(s.vScale, 6)}; sm_scale ${num(s.smScale, 6)}`,
    '',
    `            ${lpad('bmm1', 12)} ${lpad('bmm2', 12)}  KV dequantized first`,
    `  expected  ${lpad(num(r.expected.bmm1, 6), 12)} ${lpad(num(r.expected.bmm2, 6), 12)}  ${yes(r.expected.dequantizeKvFirst)}`,
    `  passed    ${lpad(num(r.passed.bmm1, 6), 12)} ${lpad(num(r.passed.bmm2, 6), 12)}  ${yes(r.passed.dequantizeKvFirst)}`,
    '',
    `effect on real values: logits × ${num(r.logitsFactor, 6)}${r.logitsFactorIs && r.logitsFactorIs !== '1' ? ` (= ${r.logitsFactorIs})` : ''}, output × ${num(r.outputFactor, 6)}${r.outputFactorIs && r.outputFactorIs !== '1' ? ` (= ${r.outputFactorIs})` : ''}`,
    ...r.notes.map((n) => `note: ${n}`),
    r.correct ? 'verdict: correct' : 'verdict: WRONG — the kernel receives scales that change the attention of real values',
  ];
  return lines.join('\n') + '\n';
}
