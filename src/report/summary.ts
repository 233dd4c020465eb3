/**
 * The verdict summary at the top of the report: per input, what is corrupt, the minimal failing
 * interaction with its verified remedies, where the probe saw corrupt tokens, where the kernel is
 * wrong, and the hazard ids lint raised. Sentences only from the data; nothing is inferred.
 */
import type { KernelData, LintData, MatrixData, ProbeData, ReportData, SummaryItem } from './data.js';

export const pairsText = (levels: Record<string, string>): string =>
  Object.entries(levels)
    .map(([f, l]) => `${f}=${l}`)
    .join(' + ');

export const percent = (x: number): string => `${(100 * x).toFixed(x > 0 && x < 0.01 ? 2 : 1)}%`;

function matrixItem(m: MatrixData): SummaryItem {
  const verified = m.interactions.filter((i) => i.status === 'verified');
  const details: string[] = [];
  for (const it of verified) {
    const remedies = it.remedies.map((r) => `${pairsText(r.change)} (${r.cell} passed)`);
    details.push(`Minimal failing interaction: ${pairsText(it.interaction)}${Object.keys(it.forced).length ? ` (the constraints force ${pairsText(it.forced)} along)` : ''}`);
    details.push(remedies.length ? `Verified remedies: ${remedies.join('; ')}` : 'No single change was verified to clear it.');
  }
  for (const it of m.interactions.filter((i) => i.status === 'inconclusive'))
    details.push(`Localization from ${it.source} was inconclusive: ${it.reason ?? 'no reason recorded'}`);
  if (m.notInvolved.length) details.push(`Not involved: ${m.notInvolved.map((n) => n.factor).join(', ')}`);
  const corrupt = m.cells.filter((c) => c.outcome === 'corrupt').length;
  details.push(
    `${m.launches.used} launches${m.launches.exhaustive ? ` (exhaustive testing: ${m.launches.exhaustive})` : ''}; ${corrupt} corrupt.`,
  );
  details.push(...m.notes);
  const headline =
    m.verdict === 'corruption-found'
      ? `Corruption localized to ${verified.map((i) => pairsText(i.interaction)).join(' and ')}`
      : m.verdict === 'clean'
        ? 'Every launch passed and every valid combination was covered'
        : 'Inconclusive: no minimal failing interaction was verified';
  return { kind: 'matrix', source: m.source, status: m.verdict === 'corruption-found' ? 'corrupt' : m.verdict, headline, details };
}

function probeItem(p: ProbeData): SummaryItem {
  const past = p.corruptTokens.filter((t) => t.sinceWindow !== undefined && t.sinceWindow > 0).length;
  const where =
    p.corruptTokens.length === 0
      ? ''
      : p.window === undefined
        ? ' (window unknown)'
        : past === p.corruptTokens.length
          ? ', all past the window'
          : `, ${past} past the window and ${p.corruptTokens.length - past} within it`;
  const headline =
    p.verdict === 'CORRUPT'
      ? `${p.target.url} corrupts output: ${p.tokens.corrupt} of ${p.tokens.judged} judged tokens implausible (${percent(p.tokens.rate)})${where}`
      : p.verdict === 'CLEAN'
        ? `${p.target.url}: no corruption (≤ ${percent(p.tokens.upper)} of tokens at the test's confidence)`
        : `${p.target.url}: inconclusive`;
  return {
    kind: 'probe',
    source: p.source,
    status: p.verdict === 'CORRUPT' ? 'corrupt' : p.verdict === 'CLEAN' ? 'clean' : 'inconclusive',
    headline,
    details: [p.reason, `${p.counts.judged} requests judged: ${p.counts.corrupt} corrupt, ${p.counts.benignDrift} benign drift, ${p.counts.identical} identical, ${p.counts.failed} failed`],
  };
}

function kernelItem(k: KernelData): SummaryItem {
  const failing = k.dumps.filter((d) => !d.ok);
  const pairs = failing.reduce((n, d) => n + d.faultyPairs, 0);
  const details = k.controls
    .filter((c) => c.verdict !== 'not covered')
    .map((c) => `${c.name}: ${c.verdict === 'errors' ? `errors in ${c.failing} of ${c.requests} requests` : `clean (${c.requests} requests)`}`);
  const scale = k.dumps.filter((d) => !d.scalesConsistent);
  if (scale.length) details.push(`Scale bookkeeping: ${scale.length} dump(s) were passed bmm1/bmm2 scales that do not match their dtypes and scales`);
  return {
    kind: 'kernel',
    source: k.source,
    status: k.ok ? 'clean' : 'corrupt',
    headline: k.ok
      ? `Kernel output matches the reference in all ${k.dumps.length} dumps`
      : `Kernel output is wrong in ${failing.length} of ${k.dumps.length} dumps: ${pairs} (row, head) pairs`,
    details,
  };
}

function lintItem(l: LintData): SummaryItem {
  const applies = l.findings.filter((f) => f.severity === 'error');
  const possibly = l.findings.filter((f) => f.severity !== 'error');
  const ids = (fs: typeof l.findings) => [...new Set(fs.map((f) => `${f.hazardId} (${f.alias})`))].join(', ');
  const parts = [applies.length ? `${ids(applies)} applies` : '', possibly.length ? `possibly ${[...new Set(possibly.map((f) => f.hazardId))].join(', ')}` : ''].filter(Boolean);
  const details = applies.map((f) => `${f.hazardId} remedies: ${f.remedies.map((r) => r.change).join('; ')}`);
  if (possibly.length) details.push(`${[...new Set(possibly.map((f) => f.hazardId))].join(', ')} may apply: facts they depend on were not given (see the lint section).`);
  return {
    kind: 'lint',
    source: l.source,
    status: l.findings.length ? 'findings' : 'clean',
    headline: l.findings.length ? `Lint: ${parts.join('; ')}` : `Lint: no known hazard in ${l.launches} launch(es)`,
    details,
  };
}

export function summarize(d: Pick<ReportData, 'matrix' | 'probe' | 'kernel' | 'lint'>): SummaryItem[] {
  return [...d.matrix.map(matrixItem), ...d.probe.map(probeItem), ...d.kernel.map(kernelItem), ...d.lint.map(lintItem)];
}
