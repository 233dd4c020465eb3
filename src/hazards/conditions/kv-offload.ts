/**
 * vLLM's native CPU KV offloading: `--kv-offloading-size GiB` (with `--kv-offloading-backend native`,
 * the default) or an explicit `--kv-transfer-config '{"kv_connector": "OffloadingConnector"}'`; and the
 * simple variant `SimpleCPUOffloadConnector`. `--kv-offloading-backend lmcache` hands offloading to
 * LMCache instead (other hazards).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString, show } from './args.js';
import { kvConnectorName } from './kv-connector.js';

export function nativeKvOffload(opts: { connectors: string[]; viaOffloadingSize: boolean }): Condition {
  const which = opts.connectors.join(' or ');
  return {
    name: 'native-kv-offload',
    description: `vLLM's native KV offloading is on (${opts.viaOffloadingSize ? '--kv-offloading-size with the native backend, or ' : ''}--kv-transfer-config kv_connector ${which})`,
    check(d: Deployment): ConditionResult {
      const c = kvConnectorName(d);
      if (c.name)
        return opts.connectors.includes(c.name)
          ? { status: 'met', detail: c.detail, at: c.at }
          : { status: 'not-met', detail: `${c.detail}: not ${which}`, at: c.at };
      if (arg(d, 'kv_transfer_config')) return { status: 'unknown', detail: c.detail, at: c.at };
      const size = arg(d, 'kv_offloading_size');
      if (!opts.viaOffloadingSize || !size)
        return {
          status: 'not-met',
          detail: `no --kv-transfer-config with ${which}${opts.viaOffloadingSize ? ' and no --kv-offloading-size' : ''}`,
        };
      const gib = typeof size.value === 'number' ? size.value : Number(show(size.value));
      if (size.value === null || !Number.isFinite(gib))
        return {
          status: 'unknown',
          detail: `--kv-offloading-size ${show(size.value)} is not a number`,
          at: size.at,
        };
      if (gib <= 0)
        return {
          status: 'not-met',
          detail: `--kv-offloading-size ${gib}: no offloading buffer`,
          at: size.at,
        };
      const backend = arg(d, 'kv_offloading_backend');
      const name = asString(backend?.value)?.toLowerCase() ?? 'native';
      if (name !== 'native')
        return {
          status: 'not-met',
          detail: `--kv-offloading-backend ${name}: offloading goes to ${name}, not vLLM's own connector`,
          at: backend?.at,
        };
      return {
        status: 'met',
        detail: `--kv-offloading-size ${gib} with the ${backend ? '' : 'default '}native backend: vLLM's OffloadingConnector`,
        at: size.at,
      };
    },
  };
}
