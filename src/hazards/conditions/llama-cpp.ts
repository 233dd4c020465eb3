/**
 * Conditions over what a llama.cpp-family server runs with (deployment/serving-facts.ts): llama-server's
 * flags and LLAMA_ARG_* variables, Ollama's OLLAMA_* variables. A fact only the table's default sets
 * answers `byDefault`; a value known only at run time is unknown and says what settles it. Model facts
 * (K head size, architecture) come from `--model-config`, a GGUF file's header or a config.json.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import type { ServingFact, ServingFacts } from '../../deployment/serving-facts.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { modelFamilyFromName } from '../../deployment/model-family.js';
import { noModelFacts } from './no-model-facts.js';

export function servingFactsOf(d: Deployment): ServingFacts | undefined {
  return d.llamaCpp?.facts ?? d.ollama?.facts;
}

/** KV cache types that are not quantized (ggml_is_quantized is false for them). */
const UNQUANTIZED = new Set(['f32', 'f16', 'bf16']);

function where(f: ServingFact<unknown>): string {
  return f.from === 'default' ? `${f.option ?? 'the option'}'s default` : (f.option ?? 'the launch');
}

function at(f: ServingFact<unknown> | undefined, d: Deployment): { at?: SourceLocation } {
  const a = f?.at ?? d.at;
  return a ? { at: a } : {};
}

function runtime(f: ServingFact<unknown>, d: Deployment, what: string): ConditionResult {
  return {
    status: 'unknown',
    detail: `${f.option ?? 'the value'}=${String(f.value)}: ${what} is known only when the launch runs (${f.runtime?.why ?? 'a run-time value'})`,
    ...at(f, d),
  };
}

function factOf<K extends keyof ServingFacts>(d: Deployment, k: K): ServingFacts[K] | undefined {
  return servingFactsOf(d)?.[k];
}

const notRead = (what: string): ConditionResult => ({
  status: 'not-met',
  detail: `not a llama.cpp-family launch: ${what} does not apply`,
});

/** The K (or V) cache is a quantized type (`-ctk q8_0`, OLLAMA_KV_CACHE_TYPE=q4_0). */
export function quantizedKvCache(which: 'K' | 'V'): Condition {
  const key = which === 'K' ? 'cacheTypeK' : 'cacheTypeV';
  return {
    name: `quantized-${which.toLowerCase()}-cache`,
    description: `the ${which} cache is a quantized type (-ct${which.toLowerCase()} q8_0, q4_0 …; Ollama's OLLAMA_KV_CACHE_TYPE)`,
    check(d) {
      const f = factOf(d, key);
      if (!f) return notRead(`the ${which} cache type`);
      if (f.runtime) return runtime(f, d, `the ${which} cache type`);
      const t = String(f.value).toLowerCase();
      if (UNQUANTIZED.has(t))
        return {
          status: 'not-met',
          detail: `${which} cache ${t} (${where(f)}) is not quantized`,
          ...at(f, d),
        };
      return { status: 'met', detail: `${which} cache ${t} (${where(f)})`, ...at(f, d) };
    },
  };
}

/** Flash attention is on: `-fa on`, or `auto` (the default), which turns it on where the backend has it. */
export function llamaFlashAttention(opts: { autoCounts: boolean }): Condition {
  return {
    name: 'flash-attention',
    description: opts.autoCounts
      ? 'flash attention is on (-fa on, or auto where the backend supports it)'
      : 'flash attention is on (-fa on; OLLAMA_FLASH_ATTENTION=1)',
    check(d) {
      const f = factOf(d, 'flashAttn');
      if (!f) {
        if (d.engine === 'ollama')
          return {
            status: 'unknown',
            detail:
              'OLLAMA_FLASH_ATTENTION is not set: Ollama turns flash attention on by itself for the models and GPUs it trusts it on',
            ...(d.at ? { at: d.at } : {}),
          };
        return notRead('flash attention');
      }
      if (f.runtime) return runtime(f, d, 'flash attention');
      if (f.value === 'on') return { status: 'met', detail: `flash attention on (${where(f)})`, ...at(f, d) };
      if (f.value === 'off')
        return { status: 'not-met', detail: `flash attention off (${where(f)})`, ...at(f, d) };
      return {
        status: opts.autoCounts ? 'met' : 'unknown',
        ...(f.from === 'default' ? { byDefault: true } : {}),
        detail: `flash attention ${String(f.value)} (${where(f)}): llama.cpp turns it on where the backend supports it`,
        ...at(f, d),
      };
    },
  };
}

/**
 * llama.cpp's Hadamard rotation of a quantized K cache is off: LLAMA_ATTN_ROT_DISABLE set to a
 * non-zero number (atoi), or a model whose K head size is not a multiple of 64 (llama_kv_cache:
 * `attn_rot_k = !disable && ggml_is_quantized(type_k) && n_embd_head_k % 64 == 0`).
 */
export function kRotationOff(): Condition {
  return {
    name: 'k-rotation-off',
    description:
      'the quantized K cache has no Hadamard rotation: LLAMA_ATTN_ROT_DISABLE=1, or a K head size not a multiple of 64',
    check(d) {
      const e = d.env.get('LLAMA_ATTN_ROT_DISABLE');
      if (e) {
        // llama.cpp reads it with atoi: a leading integer, else 0
        const n = Number.parseInt(e.value.trim(), 10);
        if (/\$/.test(e.value))
          return {
            status: 'unknown',
            detail: `LLAMA_ATTN_ROT_DISABLE=${e.value} is set at run time`,
            ...(e.at ? { at: e.at } : {}),
          };
        if (Number.isFinite(n) && n !== 0)
          return {
            status: 'met',
            detail: `LLAMA_ATTN_ROT_DISABLE=${e.value} turns the rotation off`,
            ...(e.at ? { at: e.at } : {}),
          };
      }
      const shape = d.modelFacts?.attention;
      const sizes = [shape?.keyLength, shape?.keyLengthSwa].filter((x): x is number => x !== undefined);
      if (!d.modelFacts)
        return noModelFacts(d, 'the K head size (the rotation is off for sizes not a multiple of 64)');
      if (sizes.length === 0)
        return {
          status: 'unknown',
          detail: `${d.modelFacts.source} does not give the K head size (the rotation is off for sizes not a multiple of 64)`,
        };
      const odd = sizes.filter((s) => s % 64 !== 0);
      if (odd.length)
        return {
          status: 'met',
          detail: `K head size ${odd.join(', ')} (${d.modelFacts.source}) is not a multiple of 64: llama.cpp leaves the rotation off with no environment at all`,
          ...(d.model?.at ? { at: d.model.at } : {}),
        };
      return {
        status: 'not-met',
        detail: `K head size ${sizes.join(', ')} is a multiple of 64 and LLAMA_ATTN_ROT_DISABLE is ${e ? `${e.value} (0)` : 'not set'}: the rotation is on`,
      };
    },
  };
}

/** The rotation is on (the complement of kRotationOff, for hazards of the rotation itself). */
export function kRotationOn(): Condition {
  const off = kRotationOff();
  return {
    name: 'k-rotation-on',
    role: 'bound',
    description:
      'the quantized K cache is Hadamard-rotated (llama.cpp’s default; LLAMA_ATTN_ROT_DISABLE not set)',
    check(d) {
      const r = off.check(d);
      if (r.status === 'met') return { ...r, status: 'not-met' };
      if (r.status === 'not-met')
        return { ...r, status: 'met', byDefault: !d.env.has('LLAMA_ATTN_ROT_DISABLE') };
      return r;
    },
  };
}

/**
 * Cached keys get a RoPE shift (a "K shift"): context shift on, or prompt-cache chunk reuse
 * (`--cache-reuse N > 0`: llama-server moves reused chunks with llama_memory_seq_add, the same
 * position shift).
 */
export function kShift(): Condition {
  return {
    name: 'k-shift',
    description:
      'cached keys are RoPE-shifted: --context-shift, or --cache-reuse N > 0 (chunks moved by a KV shift)',
    check(d) {
      const cs = factOf(d, 'contextShift');
      const cr = factOf(d, 'cacheReuse');
      if (!cs && !cr) return notRead('context shift');
      if (cs && !cs.runtime && cs.value === true)
        return {
          status: 'met',
          ...(cs.from === 'default' ? { byDefault: true } : {}),
          detail: `context shift on (${where(cs)})`,
          ...at(cs, d),
        };
      if (cr && !cr.runtime && Number(cr.value) > 0)
        return {
          status: 'met',
          detail: `--cache-reuse ${String(cr.value)} (${where(cr)}): llama-server shifts reused chunks into place (llama_memory_seq_add)`,
          ...at(cr, d),
        };
      if (cs?.runtime) return runtime(cs, d, 'context shift');
      if (cr?.runtime) return runtime(cr, d, 'cache reuse');
      return {
        status: 'not-met',
        detail: `context shift off (${cs ? where(cs) : 'default'}) and no cache reuse: no K shift`,
        ...at(cs, d),
      };
    },
  };
}

interface SwitchCondition {
  name: string;
  fact: 'swaFull' | 'cachePrompt';
  what: string;
  role?: Condition['role'];
}

/** A switch fact (`--swa-full`, `--cache-prompt` …) is `on` (true) or off (false). */
function switchIs(opts: SwitchCondition & { on: boolean }): Condition {
  return {
    name: opts.name,
    ...(opts.role ? { role: opts.role } : {}),
    description: opts.what,
    check(d) {
      const f = factOf(d, opts.fact);
      if (!f) return notRead(opts.what);
      if (f.runtime) return runtime(f, d, opts.what);
      const state = `${f.option ?? opts.fact} ${f.value === true ? 'on' : 'off'} (${where(f)})`;
      if ((f.value === true) === opts.on)
        return { status: 'met', ...(f.from === 'default' ? { byDefault: true } : {}), detail: state, ...at(f, d) };
      return { status: 'not-met', detail: state, ...at(f, d) };
    },
  };
}

export const switchOff = (opts: SwitchCondition): Condition => switchIs({ ...opts, on: false });
export const switchOn = (opts: SwitchCondition): Condition => switchIs({ ...opts, on: true });

/** Several server slots: `-np N ≥ min`, or the default auto (llama-server v0.4.0: 4 slots, unified KV). */
export function parallelSlots(min: number): Condition {
  return {
    name: 'parallel-slots',
    description: `${min} or more server slots (-np ${min}+, or the auto default, which llama-server makes 4)`,
    check(d) {
      const f = factOf(d, 'parallel');
      if (!f) return notRead('server slots');
      if (f.runtime) return runtime(f, d, 'the number of slots');
      const n = Number(f.value);
      if (n < 0)
        return {
          status: 'met',
          ...(f.from === 'default' ? { byDefault: true } : {}),
          detail: `slots auto (${where(f)}): llama-server runs 4 slots with a unified KV cache`,
          ...at(f, d),
        };
      if (n >= min) return { status: 'met', detail: `${n} slots (${where(f)})`, ...at(f, d) };
      return { status: 'not-met', detail: `${n} slot${n === 1 ? '' : 's'} (${where(f)})`, ...at(f, d) };
    },
  };
}

/** Context checkpoints are kept (`--ctx-checkpoints N > 0`, default 32 in v0.4.0). */
export function contextCheckpoints(): Condition {
  return {
    name: 'context-checkpoints',
    role: 'bound',
    description: 'context checkpoints are kept per slot (--ctx-checkpoints N > 0; the default is 32)',
    check(d) {
      const a = d.args.get('ctx_checkpoints');
      if (a) {
        if (a.runtime)
          return {
            status: 'unknown',
            detail: `--ctx-checkpoints ${String(a.value)} is set at run time`,
            ...(a.at ? { at: a.at } : {}),
          };
        const n = Number(a.value);
        return n > 0
          ? { status: 'met', detail: `--ctx-checkpoints ${n}`, ...(a.at ? { at: a.at } : {}) }
          : {
              status: 'not-met',
              detail: `--ctx-checkpoints ${String(a.value)}: no checkpoints`,
              ...(a.at ? { at: a.at } : {}),
            };
      }
      if (!d.llamaCpp) return notRead('context checkpoints');
      return {
        status: 'met',
        byDefault: true,
        detail: 'context checkpoints at llama-server’s default (32 per slot)',
      };
    },
  };
}

/** A draft model is given (`-md FILE`, `--spec-draft-hf`). */
export function draftModelGiven(): Condition {
  return {
    name: 'draft-model',
    description: 'a draft model is given (-md / --model-draft / --spec-draft-model)',
    check(d) {
      const f = factOf(d, 'draftModel');
      if (!f) return { status: 'not-met', detail: 'no draft model' };
      return { status: 'met', detail: `draft model ${String(f.value)} (${where(f)})`, ...at(f, d) };
    },
  };
}

/** Speculative decoding types as the launch leaves them: `none` (the default) means no speculation. */
export function specTypeNone(): Condition {
  return {
    name: 'spec-type-none',
    role: 'bound',
    description: '--spec-type is none (its default): no speculation type is chosen',
    check(d) {
      const f = factOf(d, 'specType');
      if (!f) return { status: 'met', byDefault: true, detail: 'no --spec-type: none' };
      if (f.runtime) return runtime(f, d, 'the speculation type');
      const legacy = factOf(d, 'draftMax');
      // --draft / --draft-n / --draft-max were removed when --spec-type came: a launch using one was written
      // for a build where -md alone turned speculation on
      if (f.from === 'default' && legacy && /^--draft(-n|-max)?$/.test(legacy.option ?? ''))
        return {
          status: 'unknown',
          detail: `${legacy.option} is a flag of builds before --spec-type, where a draft model alone turns speculation on: which build runs decides`,
          ...at(legacy, d),
        };
      const types = Array.isArray(f.value) ? f.value : [String(f.value)];
      const draft = factOf(d, 'draftModel');
      // common_models_handler_init: with --spec-type at none, the type is inferred from the draft GGUF
      // (architecture dflash → draft-dflash / draft-dspark, an MTP head → draft-mtp); a plain model infers none
      if (types.every((t) => t === 'none') && draft && /mtp|nextn|dflash|dspark/i.test(String(draft.value)))
        return {
          status: 'unknown',
          detail: `--spec-type none, but llama-server infers the type from the draft GGUF's metadata, and ${String(draft.value)} may be an MTP or DFlash sidecar`,
          ...at(draft, d),
        };
      if (types.every((t) => t === 'none'))
        return {
          status: 'met',
          ...(f.from === 'default' ? { byDefault: true } : {}),
          detail: `--spec-type ${types.join(',')} (${where(f)})`,
          ...at(f, d),
        };
      return { status: 'not-met', detail: `--spec-type ${types.join(',')} (${where(f)})`, ...at(f, d) };
    },
  };
}

/** The model's architecture is one of `archs` (GGUF general.architecture, or config.json model_type). */
export function modelArchitecture(opts: { archs: string[]; what: string; modelNames?: RegExp }): Condition {
  return {
    name: 'model-architecture',
    role: 'fact',
    description: `the model is ${opts.what} (GGUF general.architecture ${opts.archs.join(' / ')})`,
    check(d) {
      const f = d.modelFacts;
      if (f?.modelType) {
        const hit = opts.archs.includes(f.modelType);
        return {
          status: hit ? 'met' : 'not-met',
          detail: `architecture ${f.modelType} (${f.source})${hit ? '' : `: not ${opts.what}`}`,
          ...(d.model?.at ? { at: d.model.at } : {}),
        };
      }
      const names = [d.model?.value, ...(d.ollama?.models.map((m) => m.value) ?? [])].filter(
        (x): x is string => Boolean(x),
      );
      const named = opts.modelNames ? names.find((n) => opts.modelNames?.test(n)) : undefined;
      if (named) {
        const loc = d.ollama?.models.find((m) => m.value === named)?.at ?? d.model?.at;
        return {
          status: 'met',
          detail: `the model ${named} is ${opts.what} by its name`,
          ...(loc ? { at: loc } : {}),
        };
      }
      // every model the launch names belongs, by its name, to another family: a GGUF named for a Llama is
      // no gpt-oss (the name is the weaker fact; a GGUF header or config.json above always wins)
      const families = names.map((n) => modelFamilyFromName(n));
      const others = families.filter((f) => f && !opts.archs.includes(f.family));
      if (names.length && others.length === names.length)
        return {
          status: 'not-met',
          detail: `${others.map((f) => f?.why).join('; ')}: not ${opts.what} by its name`,
          ...(d.model?.at ? { at: d.model.at } : {}),
        };
      return noModelFacts(d, 'the architecture');
    },
  };
}

/** The K and V cache types differ, or one is a type CUDA's flash-attention kernels are not built for by default. */
export function kvTypesWithoutCudaFa(): Condition {
  const BUILT = new Set(['f16', 'bf16', 'q8_0', 'q4_0']);
  return {
    name: 'kv-types-without-cuda-fa-kernel',
    description:
      'K and V cache types differ, or one is q4_1 / q5_0 / q5_1 / iq4_nl (no flash-attention kernel in a default CUDA build)',
    check(d) {
      const k = factOf(d, 'cacheTypeK');
      const v = factOf(d, 'cacheTypeV');
      if (!k || !v) return notRead('KV cache types');
      if (k.runtime) return runtime(k, d, 'the K cache type');
      if (v.runtime) return runtime(v, d, 'the V cache type');
      const kt = String(k.value).toLowerCase();
      const vt = String(v.value).toLowerCase();
      const odd = [kt, vt].filter((t) => !BUILT.has(t) && t !== 'f32');
      const loc = k.from !== 'default' ? at(k, d) : at(v, d);
      if (kt !== vt)
        return {
          status: 'met',
          detail: `K cache ${kt} (${where(k)}) and V cache ${vt} (${where(v)}) differ`,
          ...loc,
        };
      if (odd.length)
        return {
          status: 'met',
          detail: `cache type ${odd[0]}: not among the default CUDA build's flash-attention types`,
          ...loc,
        };
      return { status: 'not-met', detail: `K and V cache both ${kt}`, ...loc };
    },
  };
}

/** The launch runs llama.cpp's CUDA backend (a CUDA image, or a GPU given with --gpu). */
export function cudaBackend(): Condition {
  return {
    name: 'cuda-backend',
    role: 'fact',
    description: 'llama.cpp runs its CUDA backend (an NVIDIA GPU)',
    check(d) {
      if (d.gpu && d.gpu.value.vendor !== 'amd')
        return {
          status: 'met',
          detail: `GPU ${d.gpu.value.name ?? `sm${d.gpu.value.sm}`}`,
          ...(d.gpu.at ? { at: d.gpu.at } : {}),
        };
      if (d.gpu?.value.vendor === 'amd' || d.platform?.value === 'rocm')
        return { status: 'not-met', detail: 'an AMD GPU (ROCm/HIP backend)' };
      if (d.platform?.value === 'cuda')
        return {
          status: 'met',
          detail: d.platform.evidence,
          ...(d.platform.at ? { at: d.platform.at } : {}),
        };
      const ngl = factOf(d, 'nGpuLayers');
      if (ngl && ngl.value === 0)
        return { status: 'not-met', detail: `-ngl 0 (${where(ngl)}): nothing runs on a GPU`, ...at(ngl, d) };
      return {
        status: 'unknown',
        detail:
          'which backend the build runs (CUDA, Vulkan, Metal, CPU) is not in the launch; --gpu settles it',
      };
    },
  };
}

function semver(v: string): number[] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
function cmp(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * An Ollama release in the affected range: at or after `firstBad` is met, at or before `lastGood`
 * not met, in between (or not given) unknown. The version comes from the image tag
 * (`ollama/ollama:0.30.1`).
 */
export function ollamaVersionRange(opts: { lastGood: string; firstBad: string; record: string }): Condition {
  return {
    name: 'ollama-version',
    role: 'bound',
    description: `Ollama ${opts.firstBad} or later (${opts.lastGood} is not affected)`,
    check(d) {
      const v = d.versions.ollama;
      const p = v ? semver(v.value) : undefined;
      const loc = v?.at ? { at: v.at } : {};
      if (!v || !p)
        return {
          status: 'unknown',
          detail: `the Ollama release is not known (an image tag such as ollama/ollama:0.30.1 names it); ${opts.record}`,
          ...(d.at ? { at: d.at } : {}),
        };
      if (cmp(p, semver(opts.firstBad) as number[]) >= 0)
        return { status: 'met', detail: `Ollama ${v.value}: ${opts.record}`, ...loc };
      if (cmp(p, semver(opts.lastGood) as number[]) <= 0)
        return {
          status: 'not-met',
          detail: `Ollama ${v.value} still has the guard (${opts.record})`,
          ...loc,
        };
      return {
        status: 'unknown',
        detail: `Ollama ${v.value}: between the last release known good (${opts.lastGood}) and the first known bad (${opts.firstBad})`,
        ...loc,
      };
    },
  };
}
