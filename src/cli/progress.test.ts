import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgress } from './progress.js';

function capture(isTTY: boolean) {
  let err = '';
  let t = Date.UTC(2026, 0, 2, 3, 4, 5);
  return { io: { isTTY, err: (s: string) => void (err += s) }, text: () => err, advance: (ms: number) => (t += ms), now: () => t };
}

test('not a terminal: timestamped lines, throttled, the held-back state written at the end', () => {
  const c = capture(false);
  const p = createProgress(c.io, { label: 'kernel verify', now: c.now, plainIntervalMs: 1000 });
  p.update('1/3 dumps'); // before the first interval: not worth a line
  c.advance(1500);
  p.update('2/3 dumps');
  c.advance(10);
  p.update('3/3 dumps'); // within the interval: held back
  p.log('dump c: 12 wrong pairs');
  p.done();
  assert.equal(
    c.text(),
    '2026-01-02T03:04:06Z kernel verify: 2/3 dumps\n' +
      '2026-01-02T03:04:06Z kernel verify: dump c: 12 wrong pairs\n' +
      '2026-01-02T03:04:06Z kernel verify: 3/3 dumps\n',
  );
  assert.ok(!c.text().includes('\r'), 'no terminal control characters in a log');
});

test('not a terminal, quick work: no state lines at all', () => {
  const c = capture(false);
  const p = createProgress(c.io, { label: 'kernel verify', now: c.now, plainIntervalMs: 1000 });
  p.update('1/2 dumps');
  c.advance(100);
  p.update('2/2 dumps');
  p.done();
  assert.equal(c.text(), '');
});

test('a terminal: one live line redrawn, log lines above it, cleared at the end', () => {
  const c = capture(true);
  const p = createProgress(c.io, { label: 'matrix', now: c.now, liveIntervalMs: 100 });
  p.update('1/40 launches');
  c.advance(200);
  p.update('2/40 launches');
  p.log('c002: CORRUPT');
  p.done();
  const parts = c.text().split('\r\x1b[K');
  assert.deepEqual(parts, ['', 'matrix: 1/40 launches', 'matrix: 2/40 launches', '2026-01-02T03:04:05Z matrix: c002: CORRUPT\n', 'matrix: 2/40 launches', '']);
});

test('--quiet on a terminal: plain lines, no redrawing', () => {
  const c = capture(true);
  const p = createProgress(c.io, { label: 'probe', quiet: true, now: c.now, plainIntervalMs: 1000 });
  c.advance(1000);
  p.update('3/32 requests judged');
  p.done('done: CORRUPT');
  assert.equal(c.text(), '2026-01-02T03:04:06Z probe: 3/32 requests judged\n2026-01-02T03:04:06Z probe: done: CORRUPT\n');
});
