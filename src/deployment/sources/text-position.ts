/**
 * Offsets → file:line:col. Every source keeps offsets into the text it parsed and turns them
 * into locations only at the end, through one of these functions.
 */
import type { SourceLocation } from '../../core/errors.js';

/** Maps an offset in some parsed text to where that character was written. */
export type Locate = (offset: number) => SourceLocation;

/** Lines and columns are 1-based; columns count UTF-16 code units, as editors' "col" usually does. */
export function fileLocator(file: string, text: string): Locate {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  return (offset: number) => {
    const o = Math.max(0, Math.min(offset, text.length));
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { file, line: lo + 1, column: o - lineStarts[lo] + 1 };
  };
}
