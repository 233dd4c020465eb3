/**
 * A KV connector attached to the engine (--kv-transfer-config '{"kv_connector": "…"}'): LMCache,
 * NIXL, offloading connectors. Attaching one changes which prefix-cache path the scheduler takes
 * (vllm#53505), so some hazards need any connector and others a particular one.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString, show, subArg } from './args.js';

/** The configured connector's name, or why there is none / it cannot be read. */
export function kvConnectorName(d: Deployment): {
  name?: string;
  detail: string;
  at?: ConditionResult['at'];
} {
  const cfg = arg(d, 'kv_transfer_config');
  if (!cfg) return { detail: 'no --kv-transfer-config: no KV connector' };
  const name = asString(subArg(d, 'kv_transfer_config', 'kv_connector')?.value);
  if (!name) return { detail: `--kv-transfer-config ${show(cfg.value)} names no kv_connector`, at: cfg.at };
  return { name, detail: `--kv-transfer-config kv_connector ${name}`, at: cfg.at };
}

export function kvConnector(opts: { only?: string[] } = {}): Condition {
  const which = opts.only ? opts.only.join(' or ') : 'any KV connector';
  return {
    name: 'kv-connector',
    description: `a KV connector is attached (--kv-transfer-config: ${which})`,
    check(d: Deployment): ConditionResult {
      const c = kvConnectorName(d);
      if (!c.name) {
        const cfg = arg(d, 'kv_transfer_config');
        return cfg
          ? { status: 'unknown', detail: c.detail, at: c.at }
          : { status: 'not-met', detail: c.detail };
      }
      if (opts.only && !opts.only.includes(c.name))
        return { status: 'not-met', detail: `${c.detail}: not ${which}`, at: c.at };
      return { status: 'met', detail: c.detail, at: c.at };
    },
  };
}
