/**
 * A matrix plan from a llama-server launch (issue 32, item 6): one factor per hazard-relevant
 * feature the launch turns on — a quantized K or V cache, flash attention, the full-size SWA cache,
 * several slots, context shift, speculative decoding (a draft model or a spec type), prompt-cache
 * reuse, chunk reuse (--cache-reuse), a batch size of its own — each with the plain setting as the
 * reference level and the launch's own setting as the suspect level. The facts come from
 * `Deployment.llamaCpp.facts` (read as llama-server reads its words and LLAMA_ARG_* variables).
 *
 * Targets:
 *   - `engine` (the default for llama-server launches): each cell runs `faultline engine serve
 *     --runtime llama.cpp` on the exported tiny-swa (examples/llama-cpp/serve-tiny-swa.mjs), with
 *     the launch's options mapped to the runtime's subset; what the runtime lacks is left out and
 *     the header says why, option by option. The reference runs one sequence (`--parallel 1`):
 *     several sequences in node-llama-cpp 3.21.1 can swap next-token distributions
 *     (docs/findings/004), and a reference must not be wrong now and then.
 *   - `llama.cpp`: each cell runs the launch's own llama-server binary with its model and options
 *     (run it where the launch runs), the factors varied.
 *
 * A value known only at run time (`-ctk $TYPE`) is not varied (the header names it). A launch at
 * every plain setting has nothing to blame: refused, as for vLLM.
 */
import { UserError } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import type { ServingFact, ServingFacts } from '../deployment/serving-facts.js';
import { hazards } from '../hazards/index.js';
import { CACHE_TYPES } from '../llama-cpp/options.js';
import type { GeneratedPlan, PlanLevel } from './build-plan.js';

export type LlamaTarget = 'engine' | 'llama.cpp';

interface Level {
  name: string;
  argv?: string[];
}

interface LlamaFeature {
  factor: string;
  description: string;
  why: string;
  /** Words a hazard condition's name uses when it is about this feature (cited in the comment). */
  mentions: RegExp;
  /** The plain (reference) level first, the launch's level last (the speculative factor may hold two of the launch's). */
  levels: Level[];
  /** Option keys (Deployment.args) the levels express: left out of the base command. */
  owns: (key: string) => boolean;
}

/** What the engine target leaves out, option by option, and why. */
interface Omitted {
  words: string;
  why: string;
}

const QUANTIZED = /^(q\d|iq\d|tq\d)/i;
const RUNTIME_CACHE_TYPES = new Set<string>(CACHE_TYPES);
/** The speculative options: --spec-*, the draft's (-md, -ngld, --ctx-size-draft …), the removed --draft-max. */
const SPEC_KEY = /^spec_|draft/;

const factValue = <T>(f: ServingFact<T> | undefined): T | undefined =>
  f && !f.runtime ? f.value : undefined;
const setByLaunch = (f: ServingFact<unknown> | undefined): boolean => Boolean(f && f.from !== 'default');
const isOn = (v: unknown): boolean => v === true || v === 'on' || v === 'true' || v === 'enabled' || v === 1;
const words = (f: ServingFact<unknown> | undefined, value: unknown): string =>
  `${f?.option ?? ''} ${Array.isArray(value) ? value.join(',') : String(value)}`.trim();

interface RuleContext {
  facts: ServingFacts;
  target: LlamaTarget;
  omitted: Omitted[];
  /** Run-time values not varied. */
  runtime: string[];
}

type Rule = (c: RuleContext) => LlamaFeature | undefined;

/** A fact whose value is known only at run time is not varied: the header says so. */
function known<T>(c: RuleContext, f: ServingFact<T> | undefined): T | undefined {
  if (f?.runtime) {
    c.runtime.push(`${f.option ?? ''} ${String(f.value)}`.trim());
    return undefined;
  }
  return f?.value;
}

const cacheType =
  (side: 'k' | 'v'): Rule =>
  (c) => {
    const f = side === 'k' ? c.facts.cacheTypeK : c.facts.cacheTypeV;
    const v = known(c, f);
    if (typeof v !== 'string' || !QUANTIZED.test(v)) return undefined;
    const flag = `--cache-type-${side}`;
    if (c.target === 'engine' && !RUNTIME_CACHE_TYPES.has(v)) {
      c.omitted.push({
        words: words(f, v),
        why: `the llama.cpp runtime's cache types are ${CACHE_TYPES.join(', ')}`,
      });
      return undefined;
    }
    return {
      factor: `cache_type_${side}`,
      description: `${side.toUpperCase()} cache type: f16 against the launch's ${v}`,
      why: `a quantized ${side.toUpperCase()} cache changes attention numerics (llama.cpp rotates quantized K and V with a Hadamard transform)`,
      mentions:
        side === 'k'
          ? /cache-type-k|kv-cache|quantized-k|kv-quant|cache-type\b/
          : /cache-type-v|kv-cache|quantized-v|kv-quant|cache-type\b/,
      levels: [
        { name: 'f16', argv: [flag, 'f16'] },
        { name: v, argv: [flag, v] },
      ],
      owns: (k) => k === `cache_type_${side}`,
    };
  };

const flashAttn: Rule = (c) => {
  const f = c.facts.flashAttn;
  const v = known(c, f);
  if (v !== 'on' && v !== 'auto') return undefined;
  return {
    factor: 'flash_attn',
    description: `flash attention: off against the launch's ${v}${v === 'auto' ? ` (${f?.from === 'default' ? 'the default: ' : ''}on wherever the backend has it)` : ''}`,
    why: 'flash attention is another attention kernel, and the only one that takes a quantized V cache',
    mentions: /flash/,
    levels: [
      { name: 'off', argv: ['--flash-attn', 'off'] },
      {
        name: v,
        ...(c.target === 'llama.cpp' && f?.from === 'default' ? {} : { argv: ['--flash-attn', v] }),
      },
    ],
    owns: (k) => k === 'flash_attn',
  };
};

const swaFull: Rule = (c) => {
  const f = c.facts.swaFull;
  if (!isOn(known(c, f))) return undefined;
  return {
    factor: 'swa_full',
    description:
      "the sliding-window layers' cache: the window only (llama.cpp's default) against the launch's full size (--swa-full)",
    why: 'with a sliding-window model, a full-size SWA cache keeps what a window-only cache drops (prefix reuse and context checkpoints read it)',
    mentions: /swa|sliding/,
    levels: [{ name: 'off' }, { name: 'on', argv: ['--swa-full'] }],
    owns: (k) => k === 'swa_full',
  };
};

const parallel: Rule = (c) => {
  const f = c.facts.parallel;
  const v = known(c, f);
  if (v === undefined) return undefined;
  const n = Number(v);
  // -1: llama-server chooses (4 slots and a unified KV cache in the releases that have auto)
  const slots = n === -1 ? 4 : n;
  if (!(slots > 1)) return undefined;
  return {
    factor: 'parallel',
    description: `slots (--parallel): 1 against the launch's ${n === -1 ? `auto (4 slots${f?.from === 'default' ? ', the default' : ''})` : n}`,
    why:
      c.target === 'engine'
        ? "several sequences share llama_decode batches; in node-llama-cpp 3.21.1 they can swap next-token distributions (docs/findings/004), so one sequence is the reference's"
        : 'several slots share llama_decode batches and the KV cache',
    mentions: /parallel|slot|sequence|batch/,
    levels: [
      { name: '1', argv: ['--parallel', '1'] },
      // the llama.cpp target leaves a default as the launch has it: no flag (older builds lack auto)
      c.target === 'engine'
        ? { name: String(slots), argv: ['--parallel', String(slots)] }
        : {
            name: n === -1 ? 'auto' : String(n),
            ...(f?.from === 'default' ? {} : { argv: ['--parallel', String(n)] }),
          },
    ],
    owns: (k) => k === 'parallel',
  };
};

const contextShift: Rule = (c) => {
  const f = c.facts.contextShift;
  if (!isOn(known(c, f))) return undefined;
  return {
    factor: 'context_shift',
    description: "context shift: off against the launch's on",
    why: "a sequence that fills its context drops its oldest tokens and goes on; the probe's requests fit their context, so the level shows whether turning it on alone changes output",
    mentions: /context-shift|shift/,
    levels: [
      { name: 'off', argv: ['--no-context-shift'] },
      { name: 'on', argv: ['--context-shift'] },
    ],
    owns: (k) => k === 'context_shift',
  };
};

/** The launch's speculative options as written (llama.cpp target), or their runtime equivalent (engine). */
function speculativeFor(d: Deployment): Rule {
  return (c) => {
    const draft = known(c, c.facts.draftModel);
    const types = known(c, c.facts.specType);
    const specTypes = (
      Array.isArray(types) ? types : typeof types === 'string' ? types.split(',') : []
    ).filter((t) => t !== 'none');
    const hasDraft = typeof draft === 'string' && setByLaunch(c.facts.draftModel);
    if (!hasDraft && specTypes.length === 0) return undefined;
    const levels: Level[] = [{ name: 'none' }];
    if (c.target === 'llama.cpp') {
      const argv: string[] = [];
      for (const [key, arg] of d.args)
        if (SPEC_KEY.test(key) && (arg as { from?: string }).from !== 'env') argv.push(...argWords(arg));
      levels.push({ name: hasDraft ? 'draft' : specTypes.join('+'), argv });
    } else {
      const draftMax = factValue(c.facts.draftMax);
      const n =
        typeof draftMax === 'number' && draftMax > 0 && setByLaunch(c.facts.draftMax)
          ? Math.min(draftMax, 16)
          : 8;
      if (hasDraft)
        levels.push({
          name: 'draft',
          argv: ['--model-draft', '@tiny-swa.q8_0.gguf', '--draft-max', String(n)],
        });
      for (const t of specTypes)
        if (t === 'ngram-simple')
          levels.push({ name: 'ngram', argv: ['--spec-type', 'ngram-simple', ...ngramSizes(d)] });
        else
          c.omitted.push({
            words: `--spec-type ${t}`,
            why: 'the llama.cpp runtime has only ngram-simple prompt lookup and a draft model',
          });
      if (levels.length === 1) return undefined;
    }
    return {
      factor: 'speculative',
      description:
        c.target === 'engine'
          ? `speculative decoding: none against the launch's ${[...(hasDraft ? ['draft model (here tiny-swa with Q8_0 weights)'] : []), ...specTypes].join(' and ')}`
          : `speculative decoding: none against the launch's ${[...(hasDraft ? [`draft model ${draft}`] : []), ...specTypes].join(' and ')}`,
      why: 'drafted tokens are verified in batches and rolled back when refused; the accepted ones must be the tokens plain decoding gives',
      mentions: /draft|spec|mtp|ngram|speculative/,
      levels,
      owns: (k) => SPEC_KEY.test(k),
    };
  };
}

/** The launch's ngram-simple sizes, where it sets them (the runtime takes the same names). */
function ngramSizes(d: Deployment): string[] {
  const out: string[] = [];
  for (const key of ['spec_ngram_simple_size_n', 'spec_ngram_simple_size_m']) {
    const v = d.args.get(key)?.value;
    if (typeof v === 'number') out.push(`--${key.replace(/_/g, '-')}`, String(v));
  }
  return out;
}

const cachePrompt: Rule = (c) => {
  const f = c.facts.cachePrompt;
  if (!isOn(known(c, f))) return undefined;
  return {
    factor: 'cache_prompt',
    description: `prompt-cache reuse: off against the launch's on${f?.from === 'default' ? ' (the default)' : ''}`,
    why: "a request that starts with a slot's cached tokens is evaluated from there: the reused cells must be the ones a fresh evaluation computes",
    mentions: /cache-prompt|prompt-cache|prefix|cache-reuse|reuse/,
    levels: [
      { name: 'off', argv: ['--no-cache-prompt'] },
      {
        name: 'on',
        ...(c.target === 'llama.cpp' && f?.from === 'default' ? {} : { argv: ['--cache-prompt'] }),
      },
    ],
    owns: (k) => k === 'cache_prompt',
  };
};

const cacheReuse: Rule = (c) => {
  const f = c.facts.cacheReuse;
  const v = Number(known(c, f));
  if (!(v > 0)) return undefined;
  if (c.target === 'engine') {
    c.omitted.push({
      words: words(f, v),
      why: 'the llama.cpp runtime has no chunk reuse by KV shifting; its prefix reuse (--cache-prompt) is the nearest, a factor when the launch has it on',
    });
    return undefined;
  }
  return {
    factor: 'cache_reuse',
    description: `chunk reuse by KV shifting (--cache-reuse): 0 against the launch's ${v}`,
    why: 'cached chunks are shifted to new positions instead of evaluated again',
    mentions: /cache-reuse|reuse|shift/,
    levels: [
      { name: '0', argv: ['--cache-reuse', '0'] },
      { name: String(v), argv: ['--cache-reuse', String(v)] },
    ],
    owns: (k) => k === 'cache_reuse',
  };
};

const batchSize =
  (d: Deployment): Rule =>
  (c) => {
    const a = d.args.get('batch_size');
    if (!a) return undefined;
    if ((a as { runtime?: unknown }).runtime) {
      c.runtime.push(`${(a as { option?: string }).option ?? '--batch-size'} ${String(a.value)}`);
      return undefined;
    }
    const n = Number(a.value);
    if (!(n > 0)) return undefined;
    return {
      factor: 'batch_size',
      description: `llama_decode batch (--batch-size): the default against the launch's ${n}`,
      why: 'a prompt longer than a batch is evaluated in several decodes, each attending to what the earlier ones cached',
      mentions: /batch/,
      levels: [{ name: 'default' }, { name: String(n), argv: ['--batch-size', String(n)] }],
      owns: (k) => k === 'batch_size',
    };
  };

function rules(d: Deployment): Rule[] {
  return [
    cacheType('k'),
    cacheType('v'),
    flashAttn,
    swaFull,
    parallel,
    contextShift,
    speculativeFor(d),
    cachePrompt,
    cacheReuse,
    batchSize(d),
  ];
}

/** An argument as llama-server's words: its spelling, then its value (a switch has none). */
function argWords(arg: { value: unknown; option?: string }): string[] {
  const option = arg.option ?? '';
  // a switch's spelling says on or off (--no-context-shift)
  if (typeof arg.value === 'boolean') return [option];
  if (Array.isArray(arg.value)) return arg.value.flatMap((v) => [option, String(v)]);
  return [option, String(arg.value)];
}

/** An option the engine target keeps, in the runtime's spelling; undefined for a value it does not take. */
function engineWords(key: string, value: unknown, facts: ServingFacts): string[] | undefined {
  const flag = `--${key.replace(/_/g, '-')}`;
  if (key === 'cache_type_k' || key === 'cache_type_v')
    return typeof value === 'string' && RUNTIME_CACHE_TYPES.has(value) ? [flag, value] : undefined;
  if (key === 'flash_attn') {
    const v = factValue(facts.flashAttn);
    return v === 'on' || v === 'off' || v === 'auto' ? [flag, v] : undefined;
  }
  if (key === 'batch_size') return Number(value) > 0 ? [flag, String(Number(value))] : undefined;
  // switches: swa_full has no negative form (off is the runtime's default)
  const on = isOn(value);
  if (key === 'swa_full') return on ? [flag] : [];
  return on ? [flag] : [`--no-${flag.slice(2)}`];
}

/** Options of the launch the engine target leaves out for a reason of its own (the rest: the runtime lacks them). */
const ENGINE_REASONS: Record<string, string> = {
  model: "the engine target runs tiny-swa (F32 weights), not the launch's model",
  hf_repo: "the engine target runs tiny-swa, not the launch's model",
  model_url: "the engine target runs tiny-swa, not the launch's model",
  docker_repo: "the engine target runs tiny-swa, not the launch's model",
  ctx_size:
    "sized for the launch's model; each tiny-swa sequence gets its full context length (2048), which every probe request fits",
  threads: 'one thread per cell (two threads decode 10–15× slower on small machines)',
  gpu_layers: 'the llama.cpp runtime runs on the CPU',
  ubatch_size: 'the runtime sets n_ubatch = n_batch (node-llama-cpp cannot set them apart)',
  alias: 'the plan names the model tiny-swa',
  temp: "a request's default: the probe's requests set their own sampling",
  top_p: "a request's default: the probe's requests set their own sampling",
  top_k: "a request's default: the probe's requests set their own sampling",
  min_p: "a request's default: the probe's requests set their own sampling",
  seed: "a request's default: the probe's requests set their own seed",
  metrics: 'the runtime always serves /metrics',
  jinja: 'the probe sends completions, not chat templates',
  chat_template: 'the probe sends completions, not chat templates',
  n_predict: "a request's default: the probe's requests set max_tokens",
};

/** The engine target keeps these of the launch (the runtime takes them; the factors own the rest). */
const ENGINE_KEEPS = new Set([
  'cache_type_k',
  'cache_type_v',
  'flash_attn',
  'swa_full',
  'context_shift',
  'cache_prompt',
  'batch_size',
]);
/** The plan sets these itself. */
const PLAN_SETS = new Set(['host', 'port']);

export interface LlamaPlanOptions {
  target: LlamaTarget;
  only?: string[];
  source: string;
  /** tiny-swa's window (the engine target). */
  engineWindow?: number;
}

export function buildLlamaCppPlan(d: Deployment, o: LlamaPlanOptions): GeneratedPlan {
  const facts = d.llamaCpp?.facts ?? {};
  const ctx: RuleContext = { facts, target: o.target, omitted: [], runtime: [] };
  let features = rules(d).flatMap((r) => r(ctx) ?? []);
  if (o.only) {
    const names = features.map((f) => f.factor);
    const unknown = o.only.filter((n) => !names.includes(n));
    if (unknown.length)
      throw new UserError(`--only names ${unknown.join(', ')}, which this launch has no factor for`, {
        code: 'E_USAGE',
        hint: `the launch's factors are: ${names.join(', ') || '(none)'}`,
      });
    features = features.filter((f) => o.only?.includes(f.factor));
  }
  if (features.length === 0)
    throw new UserError(
      'this llama-server launch uses none of the features a plan varies (every one is at its plain setting)',
      {
        code: 'E_PLAN_NOTHING',
        ...(d.at ? { at: d.at } : {}),
        hint: `faultline plan varies a quantized K or V cache, flash attention, --swa-full, --parallel > 1, context shift, a draft model or spec type, prompt-cache reuse, --cache-reuse and --batch-size${ctx.runtime.length ? `; known only at run time here: ${ctx.runtime.join(', ')}` : ''}`,
      },
    );
  const owns = (key: string) => features.some((f) => f.owns(key));

  const base: string[] = [];
  const omitted = [...ctx.omitted];
  const env: Record<string, string> = {};
  const envOfOption = new Map((d.llamaCpp?.envRead ?? []).map((e) => [e.name, e.option]));
  if (o.target === 'engine') {
    for (const [key, arg] of d.args) {
      if (owns(key) || PLAN_SETS.has(key)) continue;
      const a = arg as { value: unknown; option?: string; from?: string; runtime?: unknown };
      const written = argWords(a).join(' ');
      if (a.runtime) {
        if (key !== 'parallel')
          omitted.push({
            words: written,
            why: ENGINE_REASONS[key] ?? 'its value is known only when the launch runs',
          });
        continue;
      }
      if (ENGINE_KEEPS.has(key)) {
        const kept = engineWords(key, a.value, facts);
        if (kept) base.push(...kept);
        else if (!omitted.some((x) => x.words === written))
          omitted.push({ words: written, why: 'a value the llama.cpp runtime does not take' });
        continue;
      }
      if (key === 'parallel') continue;
      if (SPEC_KEY.test(key)) {
        if (!omitted.some((x) => x.words.startsWith('--spec-type')) || key !== 'spec_type')
          omitted.push({
            words: written,
            why: "speculative decoding is not varied: the runtime has none of the launch's kinds",
          });
        continue;
      }
      omitted.push({ words: written, why: ENGINE_REASONS[key] ?? 'not an option of the llama.cpp runtime' });
    }
    if (!features.some((f) => f.factor === 'parallel')) base.push('--parallel', '1');
    // llama.cpp itself reads it (no Hadamard rotation of a quantized K / V), in the runtime as in llama-server
    const rot = d.env.get('LLAMA_ATTN_ROT_DISABLE');
    if (rot) env.LLAMA_ATTN_ROT_DISABLE = rot.value;
  } else {
    const atRunTime: string[] = [];
    for (const [key, arg] of d.args) {
      const a = arg as { value: unknown; option?: string; from?: string; runtime?: unknown };
      if (owns(key) || PLAN_SETS.has(key) || a.from === 'env') continue;
      if (a.runtime || /\$\{|\$[A-Za-z_(]/.test(argWords(a).join(' '))) atRunTime.push(argWords(a).join(' '));
      base.push(...argWords(a));
    }
    for (const [name, v] of d.env) {
      const option = envOfOption.get(name);
      const key = option?.replace(/^-+/, '').replace(/-/g, '_');
      // a variable for an option the factors vary (or the address) would fight the level's flag
      if (
        key !== undefined &&
        (owns(key) || PLAN_SETS.has(key) || name === 'LLAMA_ARG_HOST' || name === 'LLAMA_ARG_PORT')
      )
        continue;
      if (/\$\{|\$[A-Za-z_(]/.test(v.value)) atRunTime.push(`${name}=${v.value}`);
      env[name] = v.value;
    }
    // no shell runs a cell's command: `$MODEL` would reach llama-server as written
    if (atRunTime.length)
      throw new UserError(
        `the launch's ${atRunTime.join(', ')} ${atRunTime.length === 1 ? 'is' : 'are'} known only when it runs, so its own llama-server cannot be planned as written`,
        {
          code: 'E_USAGE',
          ...(d.at ? { at: d.at } : {}),
          hint: 'write the values into the launch file and plan it again, or plan with --target engine (the llama.cpp runtime on tiny-swa needs neither the model nor its paths)',
        },
      );
  }

  const head =
    o.target === 'engine'
      ? [
          'node',
          '{faultline_root}/examples/llama-cpp/serve-tiny-swa.mjs',
          '{cell_dir}',
          '--model',
          '@tiny-swa.f32.gguf',
          '--alias',
          'tiny-swa',
          '--threads',
          '1',
        ]
      : [serverWord(d)];

  const factors: GeneratedPlan['data']['factors'] = {};
  const factorWhy: Record<string, string> = {};
  for (const f of features) {
    factors[f.factor] = {
      description: f.description,
      levels: Object.fromEntries(
        f.levels.map((l): [string, PlanLevel | null] => [
          l.name,
          l.argv && l.argv.length ? { argv: l.argv } : null,
        ]),
      ),
    };
    const cited = hazards
      .filter(
        (h) =>
          h.engines.includes('llama.cpp') &&
          h.id !== 'FL000' &&
          h.conditions.some((c) => f.mentions.test(c.name)),
      )
      .map((h) => h.id);
    factorWhy[f.factor] = `${f.why}${cited.length ? `; conditions of ${cited.join(', ')}` : ''}`;
  }

  const constraints: GeneratedPlan['data']['constraints'] = [];
  const fa = features.find((f) => f.factor === 'flash_attn');
  const v = features.find((f) => f.factor === 'cache_type_v');
  if (fa && v)
    constraints.push({
      if: { cache_type_v: v.levels[1].name },
      then: { flash_attn: fa.levels[1].name },
      why: 'llama.cpp refuses a quantized V cache without flash attention',
    });

  const window = o.target === 'engine' ? (o.engineWindow ?? 128) : d.modelFacts?.window;
  const header = [
    ` faultline matrix plan, generated by \`faultline plan\` from ${o.source} (llama-server${d.versions.llamaCpp ? ` ${d.versions.llamaCpp.value}` : ''}).`,
    ' Factors: the features this launch turns on; the reference runs every one at its plain setting.',
    ...(o.target === 'engine'
      ? [
          " Target: faultline's llama.cpp runtime (engine serve --runtime llama.cpp: llama.cpp as node-llama-cpp 3.21.1 bundles it, on the CPU)",
          " on the repository's tiny-swa model exported to GGUF per cell (examples/llama-cpp/serve-tiny-swa.mjs), with the launch's options",
          ' the runtime takes. The reference runs one sequence (--parallel 1): several sequences in node-llama-cpp 3.21.1 can swap',
          ' next-token distributions (docs/findings/004), and a reference must not be wrong now and then.',
          ...(omitted.length
            ? [' Left out of the launch, and why:', ...omitted.map((x) => `   ${x.words}: ${x.why}`)]
            : []),
        ]
      : [
          " Target: the launch's own llama-server, model and options, with --host 127.0.0.1 --port {port} (run it where the launch runs).",
          ...(window === undefined
            ? [
                " The model's sliding window is not known (faultline does not read GGUF files here): the probe uses the short suite.",
              ]
            : []),
        ]),
    ...(ctx.runtime.length
      ? [` Not varied (known only when the launch runs): ${ctx.runtime.join(', ')}`]
      : []),
    ...(o.target === 'engine' &&
    features.some((f) => f.factor === 'cache_prompt') &&
    !features.some((f) => f.factor === 'swa_full')
      ? [
          ' tiny-swa keeps only its window in a sliding-window cache unless --swa-full: prompt-cache reuse has little to reuse there.',
        ]
      : []),
    ' Run it: faultline matrix plan.yaml   (or, without a file: faultline matrix --from LAUNCH_FILE …)',
  ];

  return {
    data: {
      launch: {
        argv: [
          ...head,
          ...base,
          ...(o.target === 'llama.cpp' ? ['--host', '127.0.0.1'] : []),
          '--port',
          '{port}',
        ],
        ...(Object.keys(env).length ? { env } : {}),
        health: '/health',
        ready_timeout_s: o.target === 'engine' ? 180 : 900,
        stop_timeout_s: o.target === 'engine' ? 5 : 30,
      },
      reference: {
        levels: Object.fromEntries(features.map((f) => [f.factor, f.levels[0].name])),
        keep_alive: true,
      },
      factors,
      constraints,
      // the covering array is capped at the number of factors; the schema's least strength is 2
      strength: Math.max(2, Math.min(3, features.length)),
      probe: {
        suite: window === undefined ? 'short' : 'window-crossing',
        window: window ?? 128,
        page_size: 16,
        max_tokens: 24,
        concurrency: 4,
        target_rate: 0.25,
        // a request with no answer in this long is a hang, and the cell is timeout with it named
        timeout_s: o.target === 'engine' ? 90 : 300,
        ...(o.target === 'engine' ? { prompt_text: '{faultline_root}/examples/llama-cpp/prose.txt' } : {}),
      },
    },
    header,
    factorWhy,
  };
}

/** The binary the llama.cpp target runs: the launch's own word (an image entrypoint's is llama-server). */
function serverWord(d: Deployment): string {
  const entry = d.llamaCpp?.entry;
  if (entry === 'server-image' || entry === 'full-image') return 'llama-server';
  return d.argv?.[0]?.text ?? 'llama-server';
}
