/**
 * The report's side-by-side examples: reference vs candidate continuation around the first corrupt
 * tokens, with each corrupt token marked ⟦like this⟧. Text comes from the server's /detokenize,
 * segment by segment so the marks land on token boundaries; when that fails the ids are shown.
 */
import type { CorruptToken } from '../oracle/verdict.js';
import type { ServerApi } from './server-api.js';
import type { RequestRecord } from './run.js';

export interface CorruptExample {
  id: string;
  /** Generated index the excerpt starts at. */
  from: number;
  reference: string;
  candidate: string;
  corrupt: Pick<CorruptToken, 'index' | 'position' | 'sinceWindow' | 'pageOffset' | 'class'>[];
}

const BEFORE = 24;
const AFTER = 40;
const MAX_MARKS = 5;

async function text(api: ServerApi, tokens: number[]): Promise<string> {
  if (tokens.length === 0) return '';
  const r = await api.detokenize(tokens);
  return r.ok ? r.value : `[ids ${tokens.join(' ')}]`;
}

export async function buildExamples(records: RequestRecord[], api: ServerApi): Promise<CorruptExample[]> {
  const out: CorruptExample[] = [];
  for (const r of records) {
    const marks = r.judgement.corruptTokens.slice(0, MAX_MARKS);
    if (!r.reference || !r.candidate || marks.length === 0) continue;
    const from = Math.max(0, marks[0].index - BEFORE);
    const to = Math.min(r.candidate.tokens.length, marks[marks.length - 1].index + AFTER);
    let candidate = '';
    let cursor = from;
    for (const m of marks) {
      candidate += await text(api, r.candidate.tokens.slice(cursor, m.index));
      candidate += `⟦${await text(api, [r.candidate.tokens[m.index]])}⟧`;
      cursor = m.index + 1;
    }
    candidate += await text(api, r.candidate.tokens.slice(cursor, to));
    out.push({
      id: r.id,
      from,
      reference: await text(api, r.reference.tokens.slice(from, to)),
      candidate,
      corrupt: marks.map((m) => ({
        index: m.index,
        position: m.position,
        sinceWindow: m.sinceWindow,
        pageOffset: m.pageOffset,
        class: m.class,
      })),
    });
  }
  return out;
}
