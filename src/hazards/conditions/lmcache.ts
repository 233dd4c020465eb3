/**
 * LMCache connectors against vLLM's packed KV layout (vLLM ≥ 0.26.0, PR #44455): the in-process
 * LMCacheConnectorV1 restores wrong KV (LMCache#4463), the multi-process LMCacheMPConnector is the
 * workaround for dense models but corrupts shared-prefix hits on hybrid Mamba/GDN models
 * (LMCache#4247).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { kvConnectorName } from './kv-connector.js';

export function lmcacheConnectorOnPackedLayout(): Condition {
  return {
    name: 'lmcache-connector',
    description:
      'an LMCache connector restores KV: LMCacheConnectorV1 (any model), or LMCacheMPConnector on a hybrid Mamba/GDN model',
    check(d: Deployment): ConditionResult {
      const c = kvConnectorName(d);
      if (!c.name)
        return {
          status: d.args.has('kv_transfer_config') ? 'unknown' : 'not-met',
          detail: c.detail,
          at: c.at,
        };
      if (c.name === 'LMCacheConnectorV1')
        return { status: 'met', detail: `${c.detail} (in-process GPU connector)`, at: c.at };
      if (c.name !== 'LMCacheMPConnector')
        return { status: 'not-met', detail: `${c.detail}: not an LMCache connector`, at: c.at };
      const f = d.modelFacts;
      if (!f)
        return {
          status: 'unknown',
          detail: `${c.detail}: affected on hybrid models; no model config given (--model-config)`,
          at: c.at,
        };
      return f.layers.includes('linear')
        ? { status: 'met', detail: `${c.detail} on a hybrid model with recurrent layers`, at: c.at }
        : {
            status: 'not-met',
            detail: `${c.detail} on an attention-only model: the workaround of LMCache#4463`,
            at: c.at,
          };
    },
  };
}
