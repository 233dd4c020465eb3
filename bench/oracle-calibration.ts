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
 *
 * Evidence classes (evidence.ts): per pair, how many corrupt requests were weak or decisive and the
 * largest reference gap of any candidate token, in nats and in margins; at the end, over the pairs
 * expected clean, the check of the decisive class's null rate (stats.ts decisiveP0): how many benign
 * requests were decisive, the bound that sample supports, and an exponential-tail extrapolation of
 * the per-step gap noise out to the decisive gap.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../src/engine/load-model.js';
import type { Model } from '../src/engine/model.js';
import { checkLogprobsClose, exactMatch } from '../src/oracle/baselines.js';
import { clopperPearsonUpper } from '../src/oracle/binomial.js';
import { DEFAULT_DECISIVE_RULE } from '../src/oracle/evidence.js';
import { gapNoiseSamples, noiseSamples, quantile, RunningMargin } from '../src/oracle/margin.js';
import { summarizePositions, type PositionFacts } from '../src/oracle/positions.js';
import { DEFAULT_SEQUENTIAL, SequentialTest } from '../src/oracle/stats.js';
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

/**
 * P(noise ≥ x) per step from an exponential tail fitted above the 99th percentile (scale = mean
 * excess, the tail's maximum-likelihood fit): 0.01 · exp(−(x − q99) / scale).
 */
function exponentialTail(samples: readonly number[], x: number): { q99: number; scale: number; p: number } | undefined {
  if (samples.length < 100) return undefined;
  const q99 = quantile(samples, 0.99);
  const excess = samples.filter((d) => d > q99).map((d) => d - q99);
  if (excess.length === 0) return undefined;
  const scale = excess.reduce((a, b) => a + b, 0) / excess.length;
  return { q99, scale, p: x <= q99 ? 0.01 : 0.01 * Math.exp(-(x - q99) / scale) };
}

/** Over the pairs expected clean: what the decisive class's null rate rests on. */
const benign = { requests: 0, decisive: 0, worstGap: 0, worstGapMargins: 0, tokensPerRequest: [] as number[], tails: [] as { p: number; text: string }[] };

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
  const evidence = { weak: 0, decisive: 0 };
  let worstGap = 0;
  let worstGapMargins = 0;
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
    if (j.verdict === 'corrupt') evidence[j.evidence.strength === 'decisive' ? 'decisive' : 'weak']++;
    for (const sc of scores?.slice(Math.max(0, agree)) ?? []) {
      const gap = sc.topLogprob - sc.logprob;
      worstGap = Math.max(worstGap, gap);
      worstGapMargins = Math.max(worstGapMargins, gap / margin.margin);
    }
    if (p.expect === 'clean') benign.tokensPerRequest.push(c.tokens.length);
    judgedTokens += j.judgedTokens;
    corruptTokens += j.corruptTokens.length;
    corruptAt.push(...j.corruptTokens);
    implausible += j.crossScore?.counts.implausible ?? 0;
    const d = j.comparison?.divergence;
    if (d?.referenceMargin !== undefined)
      (d.kind === 'near-tie' ? nearTieGaps : suspiciousGaps).push(d.referenceMargin);
    if (!exactMatch(r, c).pass) exactFail++;
    if (!checkLogprobsClose(r, c).pass) closeFail++;
    const st = seq.add(j.verdict === 'corrupt' ? 'corrupt' : 'clean', j.evidence.strength);
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
  console.log(
    `   evidence: ${evidence.weak} weak, ${evidence.decisive} decisive corrupt requests; largest candidate-token gap under the reference ${fmt(worstGap, 2)} nat = ${fmt(worstGapMargins, 2)} margins`,
  );
  if (p.expect === 'clean') {
    benign.requests += plans.length;
    benign.decisive += evidence.decisive;
    benign.worstGap = Math.max(benign.worstGap, worstGap);
    benign.worstGapMargins = Math.max(benign.worstGapMargins, worstGapMargins);
    const tail = exponentialTail(gapNoise, DEFAULT_DECISIVE_RULE.gapNats);
    if (tail)
      benign.tails.push({
        p: tail.p,
        text: `${p.name}: gap noise q99 ${fmt(tail.q99, 2)}, tail scale ${fmt(tail.scale, 3)} nat → P(noise ≥ ${DEFAULT_DECISIVE_RULE.gapNats} nat) ≈ ${tail.p.toExponential(1)} per step`,
      });
  }
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

if (benign.requests > 0) {
  const perRequest = benign.tokensPerRequest.length ? Math.max(...benign.tokensPerRequest) : 0;
  const p0 = DEFAULT_SEQUENTIAL.decisiveP0 ?? 0;
  console.log(`== decisive evidence on the pairs expected clean (null rate assumed by the sequential test: ${p0} per request)`);
  console.log(
    `   ${benign.decisive} decisive of ${benign.requests} benign requests (one-sided 95 % bound ${fmt(clopperPearsonUpper(benign.decisive, benign.requests), 4)}: a sample this size cannot show ${p0} directly)`,
  );
  console.log(
    `   largest benign candidate-token gap ${fmt(benign.worstGap, 2)} nat = ${fmt(benign.worstGapMargins, 2)} margins; decisive needs ≥ max(${DEFAULT_DECISIVE_RULE.gapNats} nat, ${DEFAULT_DECISIVE_RULE.gapMargins} margins)`,
  );
  for (const t of benign.tails) console.log(`   ${t.text}; × ${perRequest} tokens per request at most: ≤ ${(t.p * perRequest).toExponential(1)} per request`);
  console.log(`   (load ${loadavg().map((x) => x.toFixed(1)).join(' ')}; other engineers share this machine)`);
}
