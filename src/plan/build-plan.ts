/**
 * A matrix plan from a real launch (`faultline plan LAUNCH_FILE`): the launch as the base command,
 * one factor per feature it uses off its safe level (features.ts), the constraints between them,
 * the reference at every safe level, and the probe's window and page from the model's facts.
 * The result is plain data plus the comments the YAML carries (render-plan.ts writes both).
 *
 * Targets: `vllm` keeps the launch's own server command (`vllm serve MODEL …`, with `--port
 * {port}`); `engine` points the same flags at faultline's engine (tiny-swa, the emulation preset
 * for the launch's GPU), so a plan made from a production launch can be run on a CPU — flags the
 * engine does not implement are left out and named.
 */
import { UserError } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import { hazards } from '../hazards/index.js';
import { launchFeatures, type FeatureFactor, type Target } from './features.js';

export interface PlanLevel {
  argv?: string[];
  json_args?: Record<string, Record<string, unknown>>;
}

/** The plan as `faultline matrix` reads it (YAML keys), and the comments to write beside it. */
export interface GeneratedPlan {
  data: {
    launch: { argv: string[]; env?: Record<string, string>; json_args?: Record<string, Record<string, unknown>>; health?: string; ready_timeout_s: number; stop_timeout_s: number };
    reference: { levels: Record<string, string>; keep_alive: boolean };
    factors: Record<string, { description: string; role?: 'choice'; levels: Record<string, PlanLevel | null> }>;
    constraints: { if: Record<string, string>; then: Record<string, string>; why: string }[];
    strength: number;
    probe: Record<string, unknown>;
  };
  /** The header comment lines. */
  header: string[];
  /** Why each factor is there. */
  factorWhy: Record<string, string>;
}

export interface BuildPlanOptions {
  target: Target;
  /** Keep only these factors (by name). */
  only?: string[];
  /** The plan file's label for its header (the launch file and where the launch starts). */
  source: string;
  /** The engine target's model facts (its window): the engine runs tiny-swa, not the launch's model. */
  engineWindow?: number;
}

/** Flags `faultline engine serve` implements or accepts: the engine target keeps these of the launch. */
const ENGINE_DESTS = new Set([
  'attention_backend',
  'attention_config',
  'kv_cache_dtype',
  'block_size',
  'dtype',
  'seed',
  'enforce_eager',
  'enable_prefix_caching',
  'enable_chunked_prefill',
  'speculative_config',
  'max_num_seqs',
  'max_num_batched_tokens',
]);
/** The launch's own address and length: the plan sets them. */
const PLAN_SET = new Set(['model', 'port', 'host', 'max_model_len']);
const ENGINE_MAX_MODEL_LEN = 512;

const flagOf = (dest: string): string => `--${dest.replace(/_/g, '-')}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** argv words for one parsed argument (JSON objects go to json_args instead). */
function argvOf(dest: string, value: unknown): string[] {
  if (value === true) return [flagOf(dest)];
  if (value === false) return [flagOf(dest).replace(/^--/, '--no-')];
  if (Array.isArray(value)) return [flagOf(dest), ...value.map(String)];
  return [flagOf(dest), String(value)];
}

/** Which hazards have a condition that mentions the feature. */
function hazardsMentioning(f: FeatureFactor): string[] {
  return hazards.filter((h) => h.conditions.some((c) => f.conditions.includes(c.name))).map((h) => h.id);
}

function emulationFor(d: Deployment): string {
  const sm = d.gpu?.value.sm;
  return sm !== undefined && sm >= 100 && sm < 110 ? 'sm100-affected' : 'reference';
}

export function buildPlanFromLaunch(d: Deployment, o: BuildPlanOptions): GeneratedPlan {
  let features = launchFeatures(d, o.target);
  if (o.only) {
    const known = features.map((f) => f.factor);
    const unknown = o.only.filter((n) => !known.includes(n));
    if (unknown.length)
      throw new UserError(`--only names ${unknown.join(', ')}, which this launch has no factor for`, {
        code: 'E_USAGE',
        hint: `the launch's factors are: ${known.join(', ') || '(none)'}`,
      });
    features = features.filter((f) => o.only?.includes(f.factor));
  }
  // a choice (the page size) is an alternative, not a suspect: alone it has nothing to blame
  if (features.every((f) => f.role === 'choice'))
    throw new UserError('this launch uses none of the features a plan varies (every one is at its safe level)', {
      code: 'E_PLAN_NOTHING',
      at: d.at,
      hint: 'faultline plan varies the KV dtype, speculative decoding, attention backend and flags, prefix caching, chunked prefill, page size, CUDA graphs and parallelism a launch turns on',
    });

  const owned = new Set(features.flatMap((f) => f.owns));
  const ownedKeys = new Map<string, Set<string>>();
  for (const f of features) if (f.ownsKeys) for (const k of f.ownsKeys.keys) (ownedKeys.get(f.ownsKeys.dest) ?? ownedKeys.set(f.ownsKeys.dest, new Set()).get(f.ownsKeys.dest))?.add(k);

  const argv: string[] = [];
  const jsonArgs: Record<string, Record<string, unknown>> = {};
  const dropped: string[] = [];
  for (const [dest, v] of d.args) {
    if (owned.has(dest) || PLAN_SET.has(dest)) continue;
    if (o.target === 'engine' && !ENGINE_DESTS.has(dest)) {
      dropped.push(flagOf(dest));
      continue;
    }
    if (isObject(v.value)) {
      const keep = Object.fromEntries(Object.entries(v.value).filter(([k]) => !ownedKeys.get(dest)?.has(k)));
      if (Object.keys(keep).length) jsonArgs[flagOf(dest)] = keep;
      continue;
    }
    argv.push(...argvOf(dest, v.value));
  }
  const model = d.model?.value;
  const head =
    o.target === 'engine'
      ? ['node', '{faultline_root}/bin/faultline.js', 'engine', 'serve', '--model', '{faultline_root}/models/tiny-swa', '--emulate', emulationFor(d), '--max-model-len', String(ENGINE_MAX_MODEL_LEN)]
      : ['vllm', 'serve', ...(model ? [model] : []), ...(d.args.has('max_model_len') ? argvOf('max_model_len', d.args.get('max_model_len')?.value) : [])];
  const env = Object.fromEntries([...d.env].map(([k, v]) => [k, v.value]));

  const factors: GeneratedPlan['data']['factors'] = {};
  const factorWhy: Record<string, string> = {};
  for (const f of features) {
    factors[f.factor] = {
      description: f.description,
      ...(f.role ? { role: f.role } : {}),
      levels: Object.fromEntries(
        f.levels.map((l) => [l.name, l.argv || l.json ? { ...(l.argv ? { argv: l.argv } : {}), ...(l.json ? { json_args: l.json } : {}) } : null]),
      ),
    };
    const cited = hazardsMentioning(f);
    factorWhy[f.factor] = `${f.why}${cited.length ? `; conditions of ${cited.join(', ')}` : ''}`;
  }
  const constraints: GeneratedPlan['data']['constraints'] = [];
  const backend = features.find((f) => f.factor === 'attention_backend');
  if (backend && factors.q_quantization)
    constraints.push({
      if: { attention_backend: backend.levels[0].name },
      then: { q_quantization: 'enabled' },
      why: 'attention_config.disable_flashinfer_q_quantization only exists for the FlashInfer backend',
    });

  const window = o.target === 'engine' ? o.engineWindow : d.modelFacts?.window;
  const pageSize = Number(d.args.get('block_size')?.value ?? 16);
  const keepAlive = o.target === 'engine' && features.some((f) => f.factor === 'kv_cache');
  const header = [
    ` faultline matrix plan, generated by \`faultline plan\` from ${o.source}${d.gpu ? ` (GPU ${d.gpu.value.name ?? `sm${d.gpu.value.sm}`})` : ''}.`,
    ` Factors: the features this launch uses off their safe level; the reference runs every one at its safe level.`,
    o.target === 'engine'
      ? ` Target: faultline's engine (models/tiny-swa, --emulate ${emulationFor(d)}, max_model_len ${ENGINE_MAX_MODEL_LEN}) with the launch's flags.`
      : ' Target: the launch\'s own server command, with --port {port} (run it where the launch runs: a GPU).',
    ...(dropped.length ? [` Left out (the engine does not implement them): ${dropped.join(' ')}`] : []),
    ...(window === undefined ? [' The model has no sliding window: the probe uses the short suite.'] : []),
    ...(keepAlive ? [' The reference stays up (keep_alive) to cross-score: FP8 KV noise alone diverges early from a BF16 reference.'] : []),
    ' Run it: faultline matrix plan.yaml   (or, without a file: faultline matrix --from LAUNCH_FILE …)',
  ];
  return {
    data: {
      launch: {
        argv: [...head, ...argv, '--port', '{port}'],
        ...(Object.keys(env).length ? { env } : {}),
        ...(Object.keys(jsonArgs).length ? { json_args: jsonArgs } : {}),
        ready_timeout_s: o.target === 'engine' ? 60 : 900,
        stop_timeout_s: o.target === 'engine' ? 5 : 30,
      },
      reference: { levels: Object.fromEntries(features.map((f) => [f.factor, f.levels[0].name])), keep_alive: keepAlive },
      factors,
      constraints,
      strength: Math.min(3, features.length),
      probe: {
        suite: window === undefined ? 'short' : 'window-crossing',
        window: window ?? 128,
        page_size: pageSize,
        requests: 9,
        target_rate: 0.3,
        max_tokens: 48,
        concurrency: 4,
      },
    },
    header,
    factorWhy,
  };
}
