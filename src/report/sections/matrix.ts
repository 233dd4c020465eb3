/** A matrix run: the attribution heatmap, the minimal interactions with verified remedies, the localization steps. */
import { describeConfirmation } from '../../matrix/attribution.js';
import type { MatrixData } from '../data.js';
import { html, type SafeHtml } from '../escape.js';
import { matrixChart } from '../specs/matrix.js';
import { OUTCOME_LABEL } from '../specs/colors.js';
import { pairsText } from '../summary.js';
import { figure, type Draw } from './figure.js';
import { badge, table } from './tables.js';

function changesFromReference(m: MatrixData, levels: Record<string, string>): string {
  const changed = m.factors.filter((f) => levels[f.name] !== f.reference).map((f) => `${f.name}=${levels[f.name]}`);
  return changed.length ? changed.join(' + ') : '(the reference)';
}

const outcome = (o: string) => badge(OUTCOME_LABEL[o] ?? o, o);
const rate = (x: number | undefined) => (x === undefined ? '' : `${Math.round(100 * x)}%`);

/** ": every corrupt request had after-eviction, prefix-hit" when the workload suite named features for the cell. */
function sharedFeatures(m: MatrixData, cellId: string | undefined): string {
  const features = m.cells.find((c) => c.id === cellId)?.features;
  return features?.length ? `; every corrupt request had ${features.join(', ')}` : '';
}

function stepsTable(m: MatrixData): SafeHtml {
  const named = m.localizationSteps.some((c) => c.features?.length);
  const head = ['step', 'launch', 'phase', 'levels off the reference', 'verdict', 'corrupt', ...(named ? ['every corrupt request had'] : [])];
  const rows = m.localizationSteps.map((c, i) => [
    String(i + 1),
    c.id,
    c.phase,
    changesFromReference(m, c.levels),
    outcome(c.outcome),
    rate(c.corruptRate),
    ...(named ? [c.features?.join(', ') ?? ''] : []),
  ]);
  return table(head, rows, 'steps');
}

function interactions(m: MatrixData): SafeHtml {
  if (m.interactions.length === 0)
    return html`<p>${m.verdict === 'clean' ? 'No corruption: every launch passed and every valid combination was covered by a launch with a verdict.' : 'No minimal failing interaction was localized.'}</p>`;
  return html`${m.interactions.map((it, i) =>
    it.status === 'inconclusive'
      ? html`<div class="interaction inconclusive"><h4>Interaction ${i + 1}: inconclusive</h4><p>From ${it.source} (${it.method}): ${it.reason ?? 'no reason recorded'}</p></div>`
      : html`<div class="interaction"><h4>Minimal failing interaction ${i + 1}</h4>
<p class="pairs">${pairsText(it.interaction)}</p>
<p class="muted">Verified by ${it.minimalCell ?? '?'} (the interaction alone on the reference background fails${sharedFeatures(m, it.minimalCell)}), found by ${it.method} from ${it.source}.${Object.keys(it.forced).length ? ` The constraints force ${pairsText(it.forced)} along; not part of the cause.` : ''}${it.context ? ` Context check ${it.context.cell}: ${OUTCOME_LABEL[it.context.outcome] ?? it.context.outcome}.` : ''}</p>
${it.remedies.length ? table(['verified remedy (one change)', 'launch', 'verdict'], it.remedies.map((r: { change: Record<string, string>; cell: string; recheck?: string; outcome: string }) => [pairsText(r.change), r.recheck ? `${r.cell}, again ${r.recheck}` : r.cell, outcome(r.outcome)])) : html`<p>No single change was verified to clear it.</p>`}
</div>`,
  )}`;
}

export async function matrixSection(m: MatrixData, index: number, draw: Draw): Promise<SafeHtml> {
  const l = m.launches;
  const chart = await draw(matrixChart(m, index));
  return html`<section class="matrix" id="matrix-${index + 1}"><h2>Attribution matrix <span class="source">${m.source}</span></h2>
<p>Plan <code>${m.plan.file}</code>, strength ${m.plan.strength}, ${describeConfirmation(m.plan)}. ${l.used} launches${l.exhaustive ? ` where exhaustive testing needs ${l.exhaustive}` : ''}${l.oneFactorAtATime ? ` (one factor at a time: ${l.oneFactorAtATime}, which cannot see interactions)` : ''}.</p>
${m.notes.length ? html`<ul class="notes">${m.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
${interactions(m)}
${m.notInvolved.length ? html`<p>Not involved: ${m.notInvolved.map((n, i) => html`${i ? ', ' : ''}<b>${n.factor}</b>${n.corruptWith.length ? ` (corrupt with ${n.corruptWith.join(', ')})` : ''}`)}.</p>` : ''}
${m.launchFailures.length ? html`<h4>Launch failures</h4>${table(['common levels', 'launches'], m.launchFailures.map((f) => [pairsText(f.levels), f.cells.join(', ')]))}` : ''}
${figure(chart)}
<h3>Localization steps</h3>
${m.localizationSteps.length === 0 ? html`<p>None: no failing launch needed localizing.</p>` : stepsTable(m)}
</section>`;
}
