/**
 * Whether requests are sampled with penalties (frequency / presence / repetition). They are
 * request-time sampling parameters; a request that leaves one unset gets the server default, which is
 * the model's generation_config.json under `--generation-config auto` (vLLM's default), merged with
 * `--override-generation-config`; under `--generation-config vllm` only the override applies
 * (research/correctness-oracles.md §4; vLLM engine-args documentation). So a launch can prove that
 * penalties are applied (an override that sets one), but never that they are not: requests can still
 * set them, and faultline does not read generation_config.json.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString, show } from './args.js';

/** Each penalty with its neutral value (the one that changes nothing). */
const NEUTRAL: Record<string, number> = { repetition_penalty: 1, frequency_penalty: 0, presence_penalty: 0 };

function objectValue(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** How the server's default sampling parameters are sourced, as one clause. */
function defaultsSource(d: Deployment): string {
  const gc = arg(d, 'generation_config');
  const mode = asString(gc?.value);
  if (mode === undefined || mode.toLowerCase() === 'auto')
    return `${mode ? '--generation-config auto' : 'no --generation-config (auto)'}: vLLM applies the model’s generation_config.json defaults, which faultline does not read`;
  if (mode.toLowerCase() === 'vllm')
    return '--generation-config vllm: the model’s generation_config.json defaults are not applied';
  return `--generation-config ${mode}: defaults come from that folder’s generation_config.json, which faultline does not read`;
}

export function samplingPenalties(): Condition {
  return {
    name: 'sampling-penalties',
    description:
      'requests are sampled with a frequency, presence or repetition penalty (or bad_words / allowed_token_ids): set per request, or as a server default from generation_config.json / --override-generation-config',
    check(d: Deployment): ConditionResult {
      const ov = arg(d, 'override_generation_config');
      const cfg = objectValue(ov?.value);
      const set = Object.entries(NEUTRAL).flatMap(([key, neutral]) => {
        const n = asNumber(cfg?.[key]);
        return n !== undefined && n !== neutral ? [`${key}=${n}`] : [];
      });
      if (set.length > 0)
        return {
          status: 'met',
          detail: `--override-generation-config sets ${set.join(', ')}: the server default for every request that does not set it`,
          at: ov?.at,
        };
      const badOverride =
        ov && !cfg ? `; --override-generation-config ${show(ov.value)} is not a JSON object` : '';
      return {
        status: 'unknown',
        detail: `penalties are request-time sampling parameters the launch cannot show; ${defaultsSource(d)}${badOverride}`,
        at: arg(d, 'generation_config')?.at,
      };
    },
  };
}
