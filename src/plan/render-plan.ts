/**
 * A generated plan as YAML text with its comments: the header above everything, each factor's
 * reason above it, argv lists on one line (as people write them). The text parses back to the
 * same plan (`faultline matrix` loads it like any plan file).
 */
import { Document, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { GeneratedPlan } from './build-plan.js';

/** Short lists (argv fragments, the probe) read best on one line. */
function flowLeaves(node: unknown): void {
  if (isSeq(node)) {
    node.flow = node.items.every((i) => isScalar(i));
    for (const i of node.items) flowLeaves(i);
  } else if (isMap(node)) for (const p of node.items) if (isPair(p)) flowLeaves(p.value);
}

export function renderPlan(plan: GeneratedPlan): string {
  const doc = new Document(plan.data);
  doc.commentBefore = plan.header.join('\n');
  flowLeaves(doc.contents);
  const factors = doc.get('factors', true);
  if (isMap(factors))
    for (const pair of factors.items) {
      const key = pair.key as Node;
      const name = isScalar(key) ? String(key.value) : '';
      if (plan.factorWhy[name]) key.commentBefore = ` ${plan.factorWhy[name]}`;
    }
  const probe = doc.get('probe', true);
  if (isMap(probe)) probe.flow = true;
  return doc.toString({ lineWidth: 0 });
}
