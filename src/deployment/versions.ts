/**
 * vLLM and flashinfer version strings, compared by PEP 440 (both are Python packages):
 * `0.23.1rc1.dev843+g04adc8843` (a nightly: dev build of the 0.23.1rc1 pre-release, local
 * segment = git commit), `0.6.16.post3`, `0.6.18rc7`, `v0.23.0`.
 * Order for one release: dev < pre-release (a < b < rc) < final < post; a local segment sorts
 * after the same version without one. Ranges compare by this order only, so `<0.24.0` includes
 * 0.24.0rc1 — deliberately unlike PEP 440 specifiers, which exclude pre-releases of the bound:
 * a release candidate of a fixed version is not assumed to carry the fix.
 */
import { UserError } from '../core/errors.js';

export interface Version {
  text: string;
  epoch: number;
  release: number[];
  pre?: { kind: 'a' | 'b' | 'rc'; n: number };
  post?: number;
  dev?: number;
  local?: (number | string)[];
}

const PRE_KIND: Record<string, 'a' | 'b' | 'rc'> = {
  a: 'a',
  alpha: 'a',
  b: 'b',
  beta: 'b',
  c: 'rc',
  rc: 'rc',
  pre: 'rc',
  preview: 'rc',
};

// PEP 440 (appendix "parsing"), case-insensitive, with its permitted spellings.
const PEP440 = new RegExp(
  '^\\s*v?' +
    '(?:(?<epoch>\\d+)!)?' +
    '(?<release>\\d+(?:\\.\\d+)*)' +
    '(?:[-_.]?(?<preL>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?<preN>\\d+)?)?' +
    '(?:-(?<postN1>\\d+)|[-_.]?(?<postL>post|rev|r)[-_.]?(?<postN2>\\d+)?)?' +
    '(?:[-_.]?(?<devL>dev)[-_.]?(?<devN>\\d+)?)?' +
    '(?:\\+(?<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?' +
    '\\s*$',
  'i',
);

/** Parse a PEP 440 version; undefined when the text is not one. */
export function parseVersion(text: string): Version | undefined {
  const m = PEP440.exec(text);
  if (!m?.groups) return undefined;
  const g = m.groups;
  const v: Version = {
    text: text.trim(),
    epoch: Number(g.epoch ?? 0),
    release: g.release.split('.').map(Number),
  };
  if (g.preL) v.pre = { kind: PRE_KIND[g.preL.toLowerCase()], n: Number(g.preN ?? 0) };
  if (g.postN1 !== undefined || g.postL !== undefined) v.post = Number(g.postN1 ?? g.postN2 ?? 0);
  if (g.devL !== undefined) v.dev = Number(g.devN ?? 0);
  if (g.local)
    v.local = g.local
      .toLowerCase()
      .split(/[-_.]/)
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return v;
}

function compareReleases(a: number[], b: number[]): number {
  const n = Math.max(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const d = (a[k] ?? 0) - (b[k] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

const PRE_RANK = { a: 0, b: 1, rc: 2 } as const;

/** Sort key of the pre-release part: a dev-only build of a final sorts before every pre-release of it. */
function preKey(v: Version): [number, number] {
  if (!v.pre && v.post === undefined && v.dev !== undefined) return [-1, 0];
  if (!v.pre) return [3, 0];
  return [PRE_RANK[v.pre.kind], v.pre.n];
}

function compareLocal(a?: (number | string)[], b?: (number | string)[]): number {
  if (!a && !b) return 0;
  if (!a) return -1;
  if (!b) return 1;
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    const x = a[k];
    const y = b[k];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') {
      if (x !== y) return Math.sign(x - y);
    } else if (typeof x === 'number')
      return 1; // numeric segments sort after alphanumeric ones
    else if (typeof y === 'number') return -1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** PEP 440 order of two parsed versions: negative, zero or positive. */
export function compareParsed(a: Version, b: Version): number {
  if (a.epoch !== b.epoch) return Math.sign(a.epoch - b.epoch);
  const rel = compareReleases(a.release, b.release);
  if (rel !== 0) return rel;
  const [pa, pb] = [preKey(a), preKey(b)];
  if (pa[0] !== pb[0]) return Math.sign(pa[0] - pb[0]);
  if (pa[1] !== pb[1]) return Math.sign(pa[1] - pb[1]);
  const [qa, qb] = [a.post ?? -1, b.post ?? -1];
  if (qa !== qb) return Math.sign(qa - qb);
  const [da, db] = [a.dev ?? Infinity, b.dev ?? Infinity];
  if (da !== db) return da < db ? -1 : 1;
  return compareLocal(a.local, b.local);
}

function mustParse(text: string): Version {
  const v = parseVersion(text);
  if (!v) {
    throw new UserError(`"${text}" is not a version`, {
      code: 'E_VERSION',
      hint: 'give a Python package version such as 0.23.0, 0.23.1rc1.dev843+g04adc8843 or 0.6.16.post3',
    });
  }
  return v;
}

/** PEP 440 order of two version strings; a string that is not a version is a UserError. */
export function compareVersions(a: string, b: string): number {
  return compareParsed(mustParse(a), mustParse(b));
}

export type RangeResult = boolean | 'unknown';

/**
 * Whether `version` lies in `range`: comparators separated by spaces or commas, all of which must
 * hold: `>=0.11.0 <0.24.0`, `==0.23.0`, `!=0.23.1`, `>0.6.12,<=0.6.16.post3`. An absent, `unknown`
 * or unparseable version gives 'unknown' — callers treat it as possibly affected and say so.
 */
export function inRange(version: string | undefined, range: string): RangeResult {
  const comparators = range
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((c) => {
      const m = /^(>=|<=|==|!=|>|<)(.+)$/.exec(c);
      if (!m) {
        throw new UserError(`bad version range comparator "${c}" in "${range}"`, {
          code: 'E_VERSION',
          hint: 'write comparators such as ">=0.11.0 <0.24.0"',
        });
      }
      return { op: m[1], bound: mustParse(m[2]) };
    });
  if (version === undefined || version.trim().toLowerCase() === 'unknown') return 'unknown';
  const v = parseVersion(version);
  if (!v) return 'unknown';
  return comparators.every(({ op, bound }) => {
    const d = compareParsed(v, bound);
    switch (op) {
      case '>=':
        return d >= 0;
      case '<=':
        return d <= 0;
      case '>':
        return d > 0;
      case '<':
        return d < 0;
      case '==':
        return d === 0;
      default:
        return d !== 0;
    }
  });
}

/** The git commit a nightly build names in its local segment (`…+g04adc8843` → `04adc8843`). */
export function gitCommitOf(version: string): string | undefined {
  const local = parseVersion(version)?.local;
  const seg = local?.find((s): s is string => typeof s === 'string' && /^g[0-9a-f]{7,40}$/.test(s));
  return seg?.slice(1);
}
