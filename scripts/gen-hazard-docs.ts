/**
 * Writes docs/hazards/FLnnn.md from the hazard catalog (the same renderer `lint --explain` uses).
 *   npx tsx scripts/gen-hazard-docs.ts          # regenerate
 *   npx tsx scripts/gen-hazard-docs.ts --check  # exit 1 if a committed page is missing, stale or orphaned
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hazards } from '../src/hazards/index.js';
import {
  hazardDocFileName,
  hazardDocsDir,
  renderHazardMarkdown,
  staleHazardDocs,
} from '../src/hazards/docs.js';

const dir = hazardDocsDir();
if (process.argv.includes('--check')) {
  const problems = staleHazardDocs(dir);
  for (const p of problems) console.error(`docs/hazards/${p}`);
  if (problems.length) console.error('run: npx tsx scripts/gen-hazard-docs.ts');
  process.exitCode = problems.length ? 1 : 0;
} else {
  mkdirSync(dir, { recursive: true });
  for (const h of hazards) writeFileSync(join(dir, hazardDocFileName(h)), renderHazardMarkdown(h));
  console.log(`wrote ${hazards.length} pages to docs/hazards/`);
}
