/**
 * `--prometheus-textfile FILE.prom`: the metrics for node-exporter's textfile collector, which reads
 * every *.prom file of its directory at each scrape. The file is replaced by a rename, so a scrape
 * never reads a half-written file; the temporary name does not end in .prom, so it is never read.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { UserError } from '../../core/errors.js';

const temporaryOf = (path: string) => `${path}.${process.pid}.tmp`;

function cannotWrite(path: string, e: unknown): UserError {
  return new UserError(
    `cannot write --prometheus-textfile ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    { hint: "point it into node-exporter's --collector.textfile.directory, a directory this user can write" },
  );
}

/** Checked before the first round, without touching the file a previous run left for the scraper. */
export function checkTextfilePath(path: string): void {
  if (!path.endsWith('.prom'))
    throw new UserError(`--prometheus-textfile ${path}: node-exporter's textfile collector only reads files ending in .prom`, {
      hint: 'name it e.g. /var/lib/node_exporter/textfile_collector/faultline.prom',
    });
  try {
    writeFileSync(temporaryOf(path), '');
    rmSync(temporaryOf(path));
  } catch (e) {
    throw cannotWrite(path, e);
  }
}

export function writeTextfile(path: string, text: string): void {
  try {
    writeFileSync(temporaryOf(path), text);
    renameSync(temporaryOf(path), path);
  } catch (e) {
    throw cannotWrite(path, e);
  }
}
