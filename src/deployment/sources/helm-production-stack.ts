/**
 * vllm-project/production-stack Helm values → the `vllm serve` command its chart renders.
 * Emulates helm/templates/deployment-vllm-multi.yaml at production-stack@a6c01db0 (the fields
 * listed in research/configs-and-cli.md §4.1): for each enabled servingEngineSpec.modelSpec[]
 * entry, command `vllm serve MODEL --host 0.0.0.0 --port PORT`, then modelSpec switches, then
 * vllmConfig flags in the chart's order, extraArgs verbatim (one argv word per item), revision,
 * the LMCache kv-transfer config and the chat template; env in the chart's order. Tokens are
 * located at the values they come from; words the chart itself adds at the modelSpec entry.
 */
import { isMap, isScalar, type Node } from 'yaml';
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArgToken, LaunchCommand } from './launch-command.js';
import { newLaunch } from './launch-command.js';
import { kubernetesEnv, nodeSelectorTermHints } from './kubernetes.js';
import { locOf, mapGet, mapKeyNode, mapPath, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

/** vllmConfig keys the chart turns into `--flag value`, in its order. */
const VALUE_FLAGS: [key: string, flag: string][] = [
  ['maxModelLen', '--max-model-len'],
  ['dtype', '--dtype'],
  ['tensorParallelSize', '--tensor-parallel-size'],
  ['maxNumSeqs', '--max-num-seqs'],
  ['gpuMemoryUtilization', '--gpu_memory_utilization'],
  ['maxLoras', '--max_loras'],
  ['runner', '--runner'],
  ['convert', '--convert'],
];

/** Every vllmConfig key the chart reads (the rest never reach vLLM). */
const CHART_VLLM_CONFIG_KEYS = new Set(['enableChunkedPrefill', 'enablePrefixCaching', ...VALUE_FLAGS.map(([key]) => key), 'extraArgs', 'v0', 'prometheusMultiprocDir']);

export function isProductionStackValues(doc: Node): boolean {
  return isMap(mapGet(doc, 'servingEngineSpec'));
}

export function launchesFromProductionStack(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  const engine = mapGet(doc, 'servingEngineSpec');
  if (isScalar(mapGet(engine, 'enableEngine')) && !truthy(mapGet(engine, 'enableEngine'))) return [];
  return seqItems(mapGet(engine, 'modelSpec')).flatMap((spec, index) => {
    const enabled = mapGet(spec, 'enabled');
    if (isScalar(enabled) && enabled.value === false) return [];
    const model = mapGet(spec, 'modelURL');
    if (scalarText(y, model) === undefined) return [];
    return [modelSpecLaunch(y, doc, engine, spec, index, baseDir)];
  });
}

function modelSpecLaunch(y: YamlFile, doc: Node, engine: Node | undefined, spec: Node, index: number, baseDir: string): LaunchCommand {
  const here = locOf(y, spec);
  const tokens: ArgToken[] = [];
  const word = (text: string, at: SourceLocation | undefined) => tokens.push(at ? { text, at } : { text });
  const value = (n: Node | undefined) => word(scalarText(y, n) ?? '', locOf(y, n));
  const notes: Located<string>[] = [];

  const repository = scalarText(y, mapGet(spec, 'repository')) ?? '';
  word(repository === 'lmcache/vllm-openai' ? '/opt/venv/bin/vllm' : 'vllm', here);
  word('serve', here);
  value(mapGet(spec, 'modelURL'));
  word('--host', here);
  word('0.0.0.0', here);
  const port = mapGet(engine, 'containerPort');
  word('--port', locOf(y, port) ?? here);
  word(scalarText(y, port) ?? '8000', locOf(y, port) ?? here);
  if (truthy(mapGet(spec, 'enableLoRA'))) word('--enable-lora', locOf(y, mapGet(spec, 'enableLoRA')));
  if (truthy(mapGet(spec, 'enableTool'))) word('--enable-auto-tool-choice', locOf(y, mapGet(spec, 'enableTool')));
  if (truthy(mapGet(spec, 'toolCallParser'))) {
    word('--tool-call-parser', locOf(y, mapKeyNode(spec, 'toolCallParser')));
    value(mapGet(spec, 'toolCallParser'));
  }

  const cfg = mapGet(spec, 'vllmConfig');
  if (isMap(cfg) && cfg.items.length > 0) {
    const chunked = mapGet(cfg, 'enableChunkedPrefill');
    if (mapKeyNode(cfg, 'enableChunkedPrefill'))
      word(truthy(chunked) ? '--enable-chunked-prefill' : '--no-enable-chunked-prefill', locOf(y, chunked));
    const prefix = mapGet(cfg, 'enablePrefixCaching');
    word(truthy(prefix) ? '--enable-prefix-caching' : '--no-enable-prefix-caching', locOf(y, prefix) ?? locOf(y, mapKeyNode(spec, 'vllmConfig')));
    for (const [key, flag] of VALUE_FLAGS) {
      const keyNode = mapKeyNode(cfg, key);
      if (!keyNode) continue;
      word(flag, locOf(y, keyNode));
      value(mapGet(cfg, key));
    }
    for (const item of seqItems(mapGet(cfg, 'extraArgs'))) {
      value(item);
      const text = scalarText(y, item) ?? '';
      if (text.startsWith('-') && /\s/.test(text.trim()))
        notes.push({ value: `extraArgs item "${text}" reaches vLLM as ONE argument (the chart quotes each item); split it into two items`, at: locOf(y, item) });
    }
  }
  notes.push(...chartIgnoredKeys(y, spec, cfg));
  if (truthy(mapGet(spec, 'modelRevision'))) {
    word('--revision', locOf(y, mapKeyNode(spec, 'modelRevision')));
    value(mapGet(spec, 'modelRevision'));
  }
  const lmcache = mapGet(spec, 'lmcacheConfig');
  if (truthy(lmcache) && truthy(mapGet(lmcache, 'enabled'))) {
    const at = locOf(y, mapGet(lmcache, 'enabled'));
    const role = scalarText(y, mapGet(lmcache, 'kvRole')) ?? 'kv_both';
    const v0 = scalarText(y, mapGet(cfg, 'v0')) === '1';
    word('--kv-transfer-config', at);
    word(`{"kv_connector":"${v0 ? 'LMCacheConnector' : 'LMCacheConnectorV1'}","kv_role":"${role}"}`, at);
    if (mapKeyNode(lmcache, 'enablePD'))
      notes.push({ value: 'lmcacheConfig.enablePD: the chart adds PD-specific kv-transfer settings and env that are not emulated', at });
  }
  if (truthy(mapGet(spec, 'chatTemplate'))) {
    word('--chat-template', locOf(y, mapKeyNode(spec, 'chatTemplate')));
    word(`/templates/${scalarText(y, mapGet(spec, 'chatTemplate'))}`, locOf(y, mapGet(spec, 'chatTemplate')));
  }
  if (truthy(mapPath(spec, 'raySpec', 'enabled')))
    notes.push({ value: 'raySpec.enabled: the chart renders a Ray cluster (ray-cluster.yaml) instead; faultline used the single-deployment flags, which may differ', at: here });

  const name = scalarText(y, mapGet(spec, 'name')) ?? String(index);
  const launch = newLaunch({ file: y.file, kind: 'helm-production-stack', object: `servingEngineSpec.modelSpec[${index}] (${name})` }, tokens, baseDir);
  launch.env = chartEnv(y, doc, engine, spec, here);
  launch.notes = notes;
  const tag = scalarText(y, mapGet(spec, 'tag'));
  if (repository) launch.image = { value: tag ? `${repository}:${tag}` : repository, at: locOf(y, mapGet(spec, 'repository')) ?? here };
  const affinity = mapGet(spec, 'affinity');
  const terms = isMap(affinity) && affinity.items.length
    ? mapPath(affinity, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms')
    : mapGet(spec, 'nodeSelectorTerms');
  launch.gpuHints = nodeSelectorTermHints(y, terms);
  return launch;
}

/** Values the chart never renders, written where a user would expect them to become flags. */
function chartIgnoredKeys(y: YamlFile, spec: Node, cfg: Node | undefined): Located<string>[] {
  const notes: Located<string>[] = [];
  const where = 'the production-stack chart (templates/deployment-vllm-multi.yaml) does not read it, so it never reaches vLLM';
  if (isMap(cfg))
    for (const item of cfg.items) {
      const key = isScalar(item.key) ? String(item.key.value) : undefined;
      if (key === undefined || CHART_VLLM_CONFIG_KEYS.has(key)) continue;
      const at = locOf(y, item.key as Node);
      notes.push({ value: `vllmConfig.${key}: ${where}; write the flag in vllmConfig.extraArgs`, ...(at ? { at } : {}) });
    }
  const misplaced = mapKeyNode(spec, 'extraArgs');
  const misplacedAt = misplaced && locOf(y, misplaced);
  if (misplaced) notes.push({ value: `modelSpec[].extraArgs: ${where}; the chart reads vllmConfig.extraArgs`, ...(misplacedAt ? { at: misplacedAt } : {}) });
  return notes;
}

function chartEnv(y: YamlFile, doc: Node, engine: Node | undefined, spec: Node, here: SourceLocation | undefined): Map<string, Located<string>> {
  const env = new Map<string, Located<string>>();
  const set = (name: string, value: string, at: SourceLocation | undefined) => env.set(name, at ? { value, at } : { value });
  set('PYTHONHASHSEED', '123', here);
  const shared = truthy(mapPath(doc, 'sharedPvcStorage', 'enabled'));
  const pvc = mapKeyNode(spec, 'pvcStorage');
  set('HF_HOME', shared ? '/data/shared-pvc-storage' : pvc ? '/data' : '/tmp', locOf(y, pvc) ?? here);
  const cfg = mapGet(spec, 'vllmConfig');
  if (isMap(cfg) && cfg.items.length > 0) {
    const v0 = mapGet(cfg, 'v0');
    if (scalarText(y, v0) === '1') set('VLLM_USE_V1', '0', locOf(y, v0));
    else set('PROMETHEUS_MULTIPROC_DIR', scalarText(y, mapGet(cfg, 'prometheusMultiprocDir')) || '/tmp', here);
  }
  for (const e of [...kubernetesEnv(y, mapGet(engine, 'env')), ...kubernetesEnv(y, mapGet(spec, 'env'))])
    if (e.value) env.set(e.name, e.value);
  const lm = mapGet(spec, 'lmcacheConfig');
  if (truthy(lm)) {
    const at = locOf(y, lm);
    if (truthy(mapGet(lm, 'enabled'))) {
      set('LMCACHE_USE_EXPERIMENTAL', 'True', at);
      set('VLLM_RPC_TIMEOUT', '1000000', at);
      set('LMCACHE_LOG_LEVEL', scalarText(y, mapGet(lm, 'logLevel')) || 'INFO', at);
    }
    const cuda = mapGet(lm, 'cudaVisibleDevices');
    if (mapKeyNode(lm, 'cudaVisibleDevices')) set('CUDA_VISIBLE_DEVICES', scalarText(y, cuda) ?? '', locOf(y, cuda));
    const cpu = mapGet(lm, 'cpuOffloadingBufferSize');
    if (Number(scalarText(y, cpu)) > 0) {
      set('LMCACHE_LOCAL_CPU', 'True', locOf(y, cpu));
      set('LMCACHE_MAX_LOCAL_CPU_SIZE', scalarText(y, cpu) ?? '', locOf(y, cpu));
    }
    const disk = mapGet(lm, 'diskOffloadingBufferSize');
    if (mapKeyNode(lm, 'diskOffloadingBufferSize')) set('LMCACHE_MAX_LOCAL_DISK_SIZE', scalarText(y, disk) ?? '', locOf(y, disk));
    const cache = mapGet(doc, 'cacheserverSpec');
    if (truthy(mapGet(cache, 'enabled'))) {
      const port = scalarText(y, mapGet(cache, 'servicePort')) ?? '';
      set('LMCACHE_REMOTE_URL', `lm://<release>-cache-server-service:${port}`, locOf(y, cache));
      const serde = scalarText(y, mapGet(cache, 'serde'));
      if (serde) set('LMCACHE_REMOTE_SERDE', serde, locOf(y, mapGet(cache, 'serde')));
    }
    const instance = mapGet(lm, 'instanceId');
    if (instance) set('LMCACHE_LMCACHE_INSTANCE_ID', scalarText(y, instance) ?? '', locOf(y, instance));
  }
  return env;
}

/** Go template truthiness: false, 0, "", null and empty collections are false. */
function truthy(n: Node | undefined): boolean {
  if (n === undefined || n === null) return false;
  if (isScalar(n)) return !(n.value === false || n.value === null || n.value === 0 || n.value === '');
  if (isMap(n)) return n.items.length > 0;
  return seqItems(n).length > 0 || !isScalar(n);
}
