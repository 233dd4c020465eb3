/**
 * The llama.cpp matrix (slow tier): `faultline matrix examples/llama-cpp/matrix.yaml` — ten of
 * llama.cpp's features on tiny-swa, one thread per server, two cells at a time — runs to a verdict,
 * and that verdict is asserted whatever it is: corruption found must come with a verified
 * interaction and the remedies that cleared it; a clean run must have tested every valid pair of
 * levels with a verdict. Every cell is printed (t.diagnostic).
 *
 * What it found (docs/findings/003): llama.cpp crashes (SIGSEGV in llama_kv_cache::build_rope_shift)
 * when a quantized K cache without its Hadamard rotation (LLAMA_ATTN_ROT_DISABLE=1) is shifted, which
 * node-llama-cpp's draft loop does: every cell with {cache_type_k: q8_0, kv_rotation: off, draft:
 * q8_0} loses its server mid-probe (probe-error, no verdict), and each cell missing one of the three
 * passes. Wrong output is allowed only where finding 004 puts it (four sequences), and it is
 * intermittent: a cell that meets it is corrupt, or probe-error when one wrong request is too few
 * for a verdict; the run is then corruption-found (verified), inconclusive (exit 3: not reproduced
 * when re-probed), or clean only if every pair was still covered by a PASS. The test holds the run
 * to that.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertCorruptionVerified, assertCrashedBySegfault, metWrongOutput, runPlanForAnswer } from '../helpers/matrix-answer.js';

test(
  'the llama.cpp matrix runs to a verdict: a verified interaction with its remedies, or clean with full pairwise coverage',
  { timeout: 1_800_000 },
  async (t) => {
    const { report, code, runDir } = await runPlanForAnswer(t, 'examples/llama-cpp/matrix.yaml', 1_790_000);
    const crashes = (levels: Record<string, string>) =>
      levels.cache_type_k === 'q8_0' && levels.kv_rotation === 'off' && levels.draft === 'q8_0';
    for (const c of report.cells.filter((x) => crashes(x.levels))) assertCrashedBySegfault(runDir, c);
    // a hung cell is recorded as timeout and names its hung requests; it is never a pass
    for (const c of report.cells.filter((x) => x.outcome === 'timeout'))
      assert.match(c.detail ?? '', /hung \(no answer/, `${c.id}: ${c.detail}`);
    // Finding 004: with four sequences node-llama-cpp now and then hands a request another request's
    // distribution (2–8 % of requests alone, so a cell of 11 requests meets it in roughly one run of
    // three). A corrupt cell anywhere else is new, and fails here.
    // A cell whose probe saw a corrupt request too few times for a verdict is probe-error with a
    // corrupt rate above zero: the same defect, met once.
    const corrupt = report.cells.filter(metWrongOutput);
    for (const c of corrupt)
      assert.equal(
        c.levels.parallel,
        '4',
        `${c.id} met wrong output at one sequence: not finding 004 (${c.detail})`,
      );
    // every other cell without a verdict is the crashing combination's
    for (const c of report.cells.filter((x) => x.outcome === 'probe-error' && !metWrongOutput(x)))
      assert.ok(crashes(c.levels), `${c.id}: probe-error outside the crashing combination (${c.detail})`);
    if (report.verdict === 'corruption-found') assertCorruptionVerified(t, report, code);
    else if (report.verdict === 'inconclusive') {
      // the intermittent defect seen, and not reproduced when localization re-probed: never clean,
      // and only where four sequences explain it (checked above)
      assert.equal(code, 3);
      assert.ok(corrupt.length > 0, 'an inconclusive run met wrong output somewhere');
      t.diagnostic(`finding 004 met in ${corrupt.map((c) => c.id).join(', ')}; not reproduced on re-probing`);
    } else {
      assert.equal(report.verdict, 'clean', `the run ends with a verdict, not ${report.verdict}`);
      assert.equal(code, 0);
      assert.ok(!report.cells.some((c) => c.outcome === 'corrupt'), 'a clean run has no corrupt cell');
      // the only cells without a PASS are the crashing combination's, or a cell that met finding 004
      // once, too few times for a verdict
      for (const c of report.cells.filter((x) => !crashes(x.levels) && !metWrongOutput(x)))
        assert.equal(c.outcome, 'pass', `${c.id}: ${c.detail}`);
      assert.equal(report.coverage.uncoveredByVerdicts, 0, 'every valid pair of levels was tested by a PASS');
    }
  },
);
