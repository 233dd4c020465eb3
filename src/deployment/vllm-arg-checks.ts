/**
 * Checks vLLM makes after argparse, reproduced on the parsed arguments: which model is served,
 * whether the attention backend name exists (and is not given twice), and how the pre-0.9
 * speculative flags map onto speculative_config.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { PreparedToken } from './argv-token.js';
import { ATTENTION_BACKENDS, HISTORICAL_ATTENTION_BACKENDS, closest } from './vllm-flags.js';
import type { ArgValue, VllmParse } from './vllm-parse-types.js';
import { isPlainObject } from './vllm-values.js';
import { reportUnknown } from './unknown-values.js';
import { configFieldsAreRelease, type ConfigCheckContext } from './vllm-config-check.js';
import { CONFIG_FIELDS_VERSION } from './vllm-config-fields.js';

export function resolveModel(
  positionals: readonly PreparedToken[],
  positionalModel: boolean,
  mode: VllmParse['entryPoint'],
  args: Map<string, ArgValue>,
  notes: Located<string>[],
  modelFromConfigFile: boolean,
): Located<string> | undefined {
  const stray = positionalModel ? positionals.slice(1) : positionals;
  for (const p of stray) {
    const looksLikeFlag = p.text.trimStart().startsWith('-') && /\s/.test(p.text);
    notes.push({
      value: looksLikeFlag
        ? `argument ${JSON.stringify(p.text)} holds a flag and its value in one argument; vLLM takes it as a stray positional and refuses to start (unrecognized arguments) — split it into two arguments`
        : `stray positional argument ${JSON.stringify(p.text)}: vLLM refuses to start (unrecognized arguments)`,
      ...(p.at ? { at: p.at } : {}),
    });
  }
  const positional = positionalModel ? positionals[0] : undefined;
  const flag = args.get('model');
  let model: Located<string> | undefined;
  if (positional && flag && typeof flag.value === 'string' && !modelFromConfigFile) {
    notes.push({
      value: `the model is given both as a positional (${positional.text}) and with --model (${flag.value}); vLLM refuses to start`,
      ...(positional.at ? { at: positional.at } : {}),
    });
    model = { value: flag.value, ...(flag.at ? { at: flag.at } : {}) };
  } else if (positional) {
    model = { value: positional.text, ...(positional.at ? { at: positional.at } : {}) };
  } else if (flag && typeof flag.value === 'string') {
    model = { value: flag.value, ...(flag.at ? { at: flag.at } : {}) };
  }
  if (model) args.set('model', { ...model });
  else if (mode !== 'args')
    notes.push({ value: 'no model given: vLLM would fall back to its built-in default model' });
  return model;
}

/**
 * attention_config.backend is validated like vLLM's AttentionBackendEnum[value.upper()] and stored
 * upper-cased. A name the 0.23 list lacks is vLLM 0.23's error; off that release it may be a newer
 * backend: a flag problem (FL000), read as written.
 */
export function checkAttentionBackend(args: Map<string, ArgValue>, ctx: ConfigCheckContext): void {
  const notes = ctx.notes;
  const ac = args.get('attention_config');
  const cfg = ac?.value;
  if (!ac || !isPlainObject(cfg) || cfg.backend === undefined || cfg.backend === null) return;
  const at = ac.keyAt?.backend ?? ac.at;
  if (typeof cfg.backend !== 'string') {
    throw new UserError(
      `attention_config.backend must be a backend name, got ${JSON.stringify(cfg.backend)}`,
      {
        code: 'E_VLLM_ARGS',
        at,
        hint: 'e.g. --attention-config.backend=FLASHINFER',
      },
    );
  }
  const name = cfg.backend.toUpperCase();
  if (name === 'AUTO') {
    cfg.backend = 'auto';
  } else if ((ATTENTION_BACKENDS as readonly string[]).includes(name)) {
    cfg.backend = name;
  } else if ((HISTORICAL_ATTENTION_BACKENDS as readonly string[]).includes(name)) {
    cfg.backend = name;
    notes.push({
      value: `attention_config.backend ${name}: a backend name of older vLLM releases, not in vLLM 0.23`,
      ...(at ? { at } : {}),
    });
  } else if (!configFieldsAreRelease(ctx.vllmVersion)) {
    const near = closest(name, ATTENTION_BACKENDS);
    const written = cfg.backend;
    cfg.backend = name;
    reportUnknown(
      ctx,
      {
        kind: 'sub-key-value',
        option: 'attention_config.backend',
        value: written,
        ...(at ? { at } : {}),
        ...(near ? { suggestion: near } : {}),
        checkedAgainst: `the attention backends of vLLM ${CONFIG_FIELDS_VERSION}`,
      },
      `attention_config.backend ${name}: not an attention backend of vLLM ${CONFIG_FIELDS_VERSION}; a newer release may have it: taken as given`,
    );
  } else {
    const near = closest(name, ATTENTION_BACKENDS);
    throw new UserError(`unknown attention backend '${cfg.backend}' in attention_config.backend`, {
      code: 'E_VLLM_ARGS',
      at,
      hint: `${near ? `did you mean ${near}? ` : ''}valid names: ${ATTENTION_BACKENDS.filter((b) => b !== 'AUTO').join(', ')}`,
    });
  }
  const flag = args.get('attention_backend');
  if (flag && flag.value !== 'auto' && cfg.backend !== 'auto') {
    notes.push({
      value:
        'both --attention-backend and attention_config.backend are set: vLLM refuses to start ("attention_backend and attention_config.backend are mutually exclusive")',
      ...(flag.at ? { at: flag.at } : {}),
    });
  }
}

/** vLLM ≤ 0.8 built the speculative config from separate flags; read them as speculative_config when that is absent. */
export function foldLegacySpeculativeFlags(args: Map<string, ArgValue>, notes: Located<string>[]): void {
  const model = args.get('speculative_model');
  const n = args.get('num_speculative_tokens');
  if ((!model && !n) || args.has('speculative_config')) return;
  const value: Record<string, unknown> = {};
  const keyAt: Record<string, SourceLocation> = {};
  if (model) {
    if (model.value === '[ngram]') value.method = 'ngram';
    else value.model = model.value;
    if (model.at) keyAt[model.value === '[ngram]' ? 'method' : 'model'] = model.at;
  }
  if (n) {
    value.num_speculative_tokens = n.value;
    if (n.at) keyAt.num_speculative_tokens = n.at;
  }
  const at = (model ?? n)?.at;
  args.set('speculative_config', { value, ...(at ? { at } : {}), keyAt });
  notes.push({
    value: `legacy speculative flags read as speculative_config ${JSON.stringify(value)}`,
    ...(at ? { at } : {}),
  });
}
