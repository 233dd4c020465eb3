/**
 * llama.cpp's own llama-server as a matrix target (slow tier): the binary is built from the source
 * node-llama-cpp ships (scripts/llama-server/build.sh, ~8 min on 2 cores the first time, then kept
 * under .tmp/llama-server), and `faultline matrix examples/llama-cpp/llama-server.yaml` runs to a
 * verdict, asserted whatever it is: corruption found comes with a verified interaction and its
 * remedies; a clean run tested every valid pair of levels with a PASS.
 *
 * What it meets (docs/findings/005): with --swa-full, a prompt whose prefix comes from the prompt
 * cache gets other logits than the same prompt evaluated whole (17 of 300 greedy outputs part, up to
 * 2.2 nat), so a cell with swa_full on and the prompt cache on now and then reads a request corrupt:
 * the cell is corrupt, or probe-error when one wrong request is too few for a verdict, and the run
 * corruption-found, inconclusive (not reproduced on re-probing) or clean. Wrong output anywhere
 * without the prompt cache fails here, as does a cell without a verdict for any other reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ensureLlamaServer } from '../helpers/llama-server-binary.js';
import { assertCorruptionVerified, metWrongOutput, runPlanForAnswer } from '../helpers/matrix-answer.js';

test(
  'llama-server built from the bundled source, as a matrix target: a verified interaction with its remedies, or clean with full pairwise coverage',
  { timeout: 2_400_000 },
  async (t) => {
    ensureLlamaServer((line) => t.diagnostic(line));
    const { report, code } = await runPlanForAnswer(t, 'examples/llama-cpp/llama-server.yaml', 880_000);
    for (const c of report.cells.filter(metWrongOutput))
      assert.notEqual(
        c.levels.cache_prompt,
        'off',
        `${c.id} met wrong output with the prompt cache off (${c.detail})`,
      );
    for (const c of report.cells.filter((x) => x.outcome !== 'pass' && !metWrongOutput(x)))
      assert.fail(`${c.id}: ${c.outcome} without wrong output (${c.detail})`);
    if (report.verdict === 'corruption-found') assertCorruptionVerified(t, report, code);
    else if (report.verdict === 'inconclusive') {
      assert.equal(code, 3);
      assert.ok(report.cells.some(metWrongOutput), 'an inconclusive run met wrong output somewhere');
    } else {
      assert.equal(report.verdict, 'clean');
      assert.equal(code, 0);
      assert.equal(report.coverage.uncoveredByVerdicts, 0, 'every valid pair of levels was tested by a PASS');
    }
  },
);
