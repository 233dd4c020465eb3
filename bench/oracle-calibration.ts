/**
 * Calibration of the probe's oracle on the real engine and the trained tiny-swa model, in process
 * (no HTTP server yet: `faultline engine serve` is issue 5). Each pair is a reference engine and a
 * candidate engine; prompts come from the window-crossing and short suites cut from
 * data/heldout-prose.txt; the reference scores each divergent candidate continuation with one
 * prefill pass (what prompt_logprobs does on a server). For every pair it prints what the oracle
 * decided, the near-tie margins it calibrated, the gaps at the first divergences, and what the
 * exact-match and check_logprobs_close baselines say on the same generations.
 *
 *   node --import tsx bench/oracle-calibration.ts [--requests 16] [--max-tokens 64] [--seed 0] [--only TEXT]
 *
 * The canonical pairs run speculative decoding (MTP head, k = 7) through the engine's scheduler,
 * so verification takes the spec-as-decode path where the fault model acts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../src/engine/load-model.js';
import type { Model } from '../src/engine/model.js';
import { checkLogprobsClose, exactMatch } from '../src/oracle/baselines.js';
import { gapNoiseSamples, noiseSamples, quantile, RunningMargin } from '../src/oracle/margin.js';
import { summarizePositions, type PositionFacts } from '../src/oracle/positions.js';
import { SequentialTest } from '../src/oracle/stats.js';
import type { Generation } from '../src/oracle/types.js';
import { corpusPrompt, engineSide, scoreContinuation, sideGeneration, type Side } from './in-process-pair.js';
import { judgeRequest } from '../src/oracle/verdict.js';
import { shortPlan, windowCrossingPlan, type LengthPlan } from '../src/probe/suites.js';
import { numberArg } from './args.js';

const argOf = numberArg;
const REQUESTS = argOf('requests', 16);
const MAX_TOKENS = argOf('max-tokens', 64);
const SEED = argOf('seed', 0);
const LOGPROBS = 5;
const onlyAt = process.argv.indexOf('--only');
const ONLY = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;
const root = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const corpus = readFileSync(root('data/heldout-prose.txt'), 'utf8');
const models = new Map<string, Model>();
const modelOf = (dir: string) => models.get(dir) ?? models.set(dir, loadModel(root(dir))).get(dir)!;

const side = (dir: string, flags: string[], k = 0): Side => engineSide(modelOf(dir), flags, k);
const generation = (s: Side, prompt: number[], maxTokens: number): Generation => sideGeneration(s, prompt, maxTokens, SEED, LOGPROBS);
const promptOf = (plan: LengthPlan, index: number): number[] => corpusPrompt(corpus, plan, index, SEED).prompt;

interface PairSpec {
  name: string;
  expect: 'clean' | 'corrupt';
  reference: [string, string[]];
  /** model, flags, MTP speculative tokens */
  candidate: [string, string[], number?];
  suite: 'window-crossing' | 'short';
}

const REF = ['--kv-cache-dtype', 'bfloat16'];
/** FP8 KV with FlashInfer's Q quantization disabled, on the affected or the fixed emulation. */
const bf16QueryFp8Kv = (emulation: 'sm100-affected' | 'sm100-fixed') => [
  '--emulate',
  emulation,
  '--kv-cache-dtype',
  'fp8_e4m3',
  '--attention-config',
  '{"disable_flashinfer_q_quantization": true}',
];
// the same flags: the scale defect needs no speculation; the canonical pairs add MTP k = 7
const SCALE_DEFECT = bf16QueryFp8Kv('sm100-affected');
const CANONICAL = bf16QueryFp8Kv('sm100-affected');
const FIXED_BF16Q = bf16QueryFp8Kv('sm100-fixed');
const pairs: PairSpec[] = [
  {
    name: 'A/A: reference vs itself',
    expect: 'clean',
    reference: ['models/tiny-swa', REF],
    candidate: ['models/tiny-swa', REF],
    suite: 'window-crossing',
  },
  {
    name: 'benign: FP8 KV, sm100-fixed',
    expect: 'clean',
    reference: ['models/tiny-swa', REF],
    candidate: ['models/tiny-swa', ['--kv-cache-dtype', 'fp8_e4m3', '--emulate', 'sm100-fixed']],
    suite: 'window-crossing',
  },
  {
    name: 'benign: float32 vs bfloat16',
    expect: 'clean',
    reference: ['models/tiny-swa', REF],
    candidate: ['models/tiny-swa', [...REF, '--dtype', 'float32']],
    suite: 'window-crossing',
  },
  {
    name: 'scale defect: tiny-swa-qscale, affected, FP8 KV, BF16 Q',
    expect: 'corrupt',
    reference: ['models/tiny-swa-qscale', REF],
    candidate: ['models/tiny-swa-qscale', SCALE_DEFECT],
    suite: 'short',
  },
  {
    name: 'scale control: tiny-swa (q_scale 1.0), same flags',
    expect: 'clean',
    reference: ['models/tiny-swa', REF],
    candidate: ['models/tiny-swa', SCALE_DEFECT],
    suite: 'window-crossing',
  },
  {
    name: 'canonical (mtp k=7) vs BF16-KV reference',
    expect: 'corrupt',
    reference: ['models/tiny-swa', REF],
    candidate: ['models/tiny-swa', CANONICAL, 7],
    suite: 'window-crossing',
  },
  {
    name: 'canonical (mtp k=7) vs BF16-KV reference, short suite',
    expect: 'clean',
    reference: ['models/tiny-swa', REF],
    candidate: ['models/tiny-swa', CANONICAL, 7],
    suite: 'short',
  },
  {
    name: 'canonical (mtp k=7) vs the same without the fault (sm100-fixed, FP8 KV, BF16 Q)',
    expect: 'corrupt',
    reference: ['models/tiny-swa', FIXED_BF16Q],
    candidate: ['models/tiny-swa', CANONICAL, 7],
    suite: 'window-crossing',
  },
];

const W = modelOf('models/tiny-swa').config.slidingWindow!;
const shape = {
  window: W,
  pageSize: 16,
  requests: REQUESTS,
  maxTokens: MAX_TOKENS,
  seed: SEED,
  maxModelLen: modelOf('models/tiny-swa').config.maxPositions,
};
const fmt = (x: number | undefined, d = 3) => (x === undefined ? '–' : x.toFixed(d));

console.log(
  `oracle calibration on the engine: window ${W}, ${REQUESTS} requests per pair, max_tokens ${MAX_TOKENS}, top-${LOGPROBS}, seed ${SEED}\n`,
);
for (const p of pairs) {
  if (ONLY && !p.name.includes(ONLY)) continue;
  const started = performance.now();
  const ref = side(...p.reference);
  const cand = side(p.candidate[0], p.candidate[1], p.candidate[2]);
  const plans = p.suite === 'short' ? shortPlan(shape) : windowCrossingPlan(shape);
  const seq = new SequentialTest();
  const running = new RunningMargin(undefined, W);
  const counts = { identical: 0, 'benign-drift': 0, corrupt: 0, failed: 0 };
  let exactFail = 0;
  let closeFail = 0;
  const nearTieGaps: number[] = [];
  const suspiciousGaps: number[] = [];
  const margins: number[] = [];
  const noise: number[] = [];
  const gapNoise: number[] = [];
  let corruptTokens = 0;
  const corruptAt: PositionFacts[] = [];
  let implausible = 0;
  let judgedTokens = 0;
  let decidedAt: number | undefined;
  for (const [i, plan] of plans.entries()) {
    const prompt = promptOf(plan, i);
    const r = generation(ref, prompt, plan.maxTokens);
    const c = generation(cand, prompt, plan.maxTokens);
    const agree = r.tokens.findIndex((t, k) => t !== c.tokens[k]);
    const own = noiseSamples(r, c, agree < 0 ? r.tokens.length : agree);
    noise.push(...own);
    gapNoise.push(...gapNoiseSamples(r, c, agree < 0 ? r.tokens.length : agree));
    const margin = running.next(r, c, prompt.length);
    margins.push(margin.margin);
    const scores = agree >= 0 ? scoreContinuation(ref, prompt, c.tokens) : undefined;
    const j = judgeRequest({
      reference: r,
      candidate: c,
      scores,
      promptLength: prompt.length,
      frame: { window: W, pageSize: 16 },
      margin,
    });
    counts[j.verdict]++;
    judgedTokens += j.judgedTokens;
    corruptTokens += j.corruptTokens.length;
    corruptAt.push(...j.corruptTokens);
    implausible += j.crossScore?.counts.implausible ?? 0;
    const d = j.comparison?.divergence;
    if (d?.referenceMargin !== undefined)
      (d.kind === 'near-tie' ? nearTieGaps : suspiciousGaps).push(d.referenceMargin);
    if (!exactMatch(r, c).pass) exactFail++;
    if (!checkLogprobsClose(r, c).pass) closeFail++;
    const st = seq.add(j.verdict === 'corrupt' ? 'corrupt' : 'clean');
    if (decidedAt === undefined && st.verdict !== 'continue') decidedAt = i + 1;
  }
  const final = seq.current.verdict === 'continue' ? seq.finish() : seq.current;
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`== ${p.name} (${p.suite}; expected ${p.expect.toUpperCase()}) — ${secs} s`);
  console.log(`   verdict ${final.verdict} (decided after ${decidedAt ?? '–'} requests): ${final.reason}`);
  console.log(
    `   requests: ${counts.identical} identical, ${counts['benign-drift']} benign drift, ${counts.corrupt} corrupt`,
  );
  console.log(`   tokens: ${corruptTokens} corrupt (${implausible} implausible) of ${judgedTokens} judged`);
  const where = summarizePositions(corruptAt);
  console.log(
    `   corrupt tokens: ${where.pastWindow} past the window, ${where.withinWindow} within it${where.count ? ` (position − window ${where.minSinceWindow} … ${where.maxSinceWindow})` : ''}`,
  );
  console.log(
    `   noise |Δlogprob| at agreeing steps: n ${noise.length}, median ${fmt(noise.length ? quantile(noise, 0.5) : undefined, 4)}, q99 ${fmt(noise.length ? quantile(noise, 0.99) : undefined, 4)}, max ${fmt(noise.length ? Math.max(...noise) : undefined, 4)}`,
  );
  console.log(
    `   runner-up gap noise: n ${gapNoise.length}, median ${fmt(gapNoise.length ? quantile(gapNoise, 0.5) : undefined, 4)}, q99 ${fmt(gapNoise.length ? quantile(gapNoise, 0.99) : undefined, 4)}, max ${fmt(gapNoise.length ? Math.max(...gapNoise) : undefined, 4)}`,
  );
  console.log(
    `   near-tie margin per request: min ${fmt(Math.min(...margins))}, median ${fmt(quantile(margins, 0.5))}, max ${fmt(Math.max(...margins))}`,
  );
  console.log(
    `   first-divergence gaps: near-tie [${nearTieGaps.map((g) => fmt(g)).join(', ')}], suspicious [${suspiciousGaps.map((g) => fmt(g)).join(', ')}]`,
  );
  console.log(
    `   baselines on the same generations: exact match fails ${exactFail}/${plans.length}, check_logprobs_close fails ${closeFail}/${plans.length}\n`,
  );
}
