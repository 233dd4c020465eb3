/**
 * What `faultline --version` prints: the package version, then the hazard catalog's version and
 * extent (a lint verdict depends on both), and how it runs when it is the standalone executable.
 */
import { isSea } from 'node:sea';
import { VERSION } from '../core/version.js';
import { CATALOG_VERSION } from '../hazards/catalog-list.js';
import { hazards } from '../hazards/index.js';

export function versionText(): string {
  const ids = hazards.map((h) => h.id);
  const runtime = isSea() ? ` (standalone executable, Node ${process.version})` : '';
  return [
    `faultline ${VERSION}${runtime}`,
    `hazard catalog ${CATALOG_VERSION} (${ids.length} hazards: ${ids[0]}–${ids[ids.length - 1]})`,
  ].join('\n');
}
