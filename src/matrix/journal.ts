/**
 * The run journal: append-only JSON lines in RUN_DIR/journal.jsonl, each record written and
 * fsync'd before the run moves on, so a crash loses at most the cells still in flight.
 * `--resume RUN_DIR` reads it back: finished cells are not run again, and the stored reference
 * data means the reference is not relaunched. A torn last line (the crash happened mid-write)
 * is cut off; a damaged line anywhere else is a UserError with its line number.
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { CellResult } from './cell-result.js';
import type { JobRecord } from './executors/job-record.js';
import { assertNotRunning, markOpen } from './run-owner.js';

export const JOURNAL_FILE = 'journal.jsonl';
export const JOURNAL_VERSION = 1;

/** A process told apart from a later one that reuses its pid (start time and boot id: Linux only). */
export interface ProcessIdentity {
  pid: number;
  startTicks?: number;
  bootId?: string;
}

export type JournalRecord =
  | {
      type: 'run';
      version: number;
      planFile: string;
      planHash: string;
      faultline: string;
      startedAt: string;
      /** Marks every server of the run (FAULTLINE_MATRIX_RUN in its environment). */
      runId?: string;
      /** The faultline process running it: a second one must not resume or clean up under it. */
      owner?: ProcessIdentity;
    }
  | { type: 'reference'; url?: string; data: unknown; at: string }
  | JobRecord
  | { type: 'cell'; cell: CellResult }
  | { type: 'resume'; at: string; owner?: ProcessIdentity }
  /** A server's process group, written as it starts: what --resume and --cleanup stop if it outlived its run. */
  | { type: 'server'; cell: string; pgid: number; startTicks?: number; bootId?: string; at: string }
  | { type: 'server-stopped'; pgid: number; at: string; by?: 'run' | 'resume' | 'cleanup' }
  | { type: 'done'; at: string };

export class Journal {
  readonly path: string;
  readonly runDir: string;
  private fd: number | undefined;

  private constructor(runDir: string, fd: number) {
    this.runDir = runDir;
    this.path = join(runDir, JOURNAL_FILE);
    this.fd = fd;
    markOpen(runDir, true);
  }

  /** A new run directory (created if needed); refuses one that already holds a journal. */
  static create(runDir: string, header: Extract<JournalRecord, { type: 'run' }>): Journal {
    mkdirSync(runDir, { recursive: true });
    const path = join(runDir, JOURNAL_FILE);
    if (existsSync(path))
      throw new UserError(`${runDir} already holds a matrix run`, {
        code: 'E_RUN_DIR',
        hint: `continue it with --resume ${runDir}, or choose another --out directory`,
      });
    const journal = new Journal(runDir, openSync(path, 'a'));
    journal.append(header);
    return journal;
  }

  /**
   * Reopens a run for appending and records the resume (with the resuming process); returns the
   * records from before it (a torn last line is cut off the file). Refused while the process that
   * last ran it still runs.
   */
  static resume(runDir: string, owner?: ProcessIdentity): { journal: Journal; records: JournalRecord[] } {
    const opened = Journal.reopen(runDir, 'resume');
    opened.journal.append({ type: 'resume', at: new Date().toISOString(), ...(owner ? { owner } : {}) });
    return opened;
  }

  /** Reopens a run for appending without resuming it (`--cleanup` notes what it stopped). */
  static reopen(runDir: string, doing: 'resume' | 'clean up'): { journal: Journal; records: JournalRecord[] } {
    const path = join(runDir, JOURNAL_FILE);
    if (!existsSync(path))
      throw new UserError(`${runDir} holds no matrix run (no ${JOURNAL_FILE})`, {
        code: 'E_RUN_DIR',
        hint: 'pass the --out directory of an earlier `faultline matrix` run',
      });
    const text = readFileSync(path, 'utf8');
    const { records, validLength } = parseJournal(path, text);
    assertNotRunning(records, runDir, doing);
    const fd = openSync(path, 'r+');
    if (validLength < Buffer.byteLength(text)) {
      ftruncateSync(fd, validLength);
      fsyncSync(fd);
    }
    closeSync(fd);
    return { journal: new Journal(runDir, openSync(path, 'a')), records };
  }

  append(record: JournalRecord): void {
    if (this.fd === undefined) throw new Error('journal is closed');
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    markOpen(this.runDir, false);
  }
}

/** Parses journal text; a last line without its newline is torn and left out. */
export function parseJournal(path: string, text: string): { records: JournalRecord[]; validLength: number } {
  const records: JournalRecord[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    lineNo++;
    const end = text.indexOf('\n', offset);
    if (end < 0) break; // torn last line: the crash came mid-write
    const line = text.slice(offset, end);
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new UserError(`damaged journal line ${lineNo}`, {
        code: 'E_JOURNAL',
        at: { file: path, line: lineNo, column: 1 },
        hint: 'the journal is append-only; restore it or start a new run',
      });
    }
    if (typeof record !== 'object' || record === null || typeof (record as { type?: unknown }).type !== 'string')
      throw new UserError(`journal line ${lineNo} is not a record`, { code: 'E_JOURNAL', at: { file: path, line: lineNo, column: 1 } });
    records.push(record as JournalRecord);
    offset = end + 1;
  }
  if (records[0]?.type !== 'run')
    throw new UserError('the journal does not start with a run record', { code: 'E_JOURNAL', at: { file: path, line: 1, column: 1 } });
  return { records, validLength: Buffer.byteLength(text.slice(0, offset)) };
}
