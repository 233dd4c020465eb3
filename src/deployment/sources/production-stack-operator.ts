/**
 * The production-stack operator's `VLLMRuntime` (production-stack.vllm.ai) → the container args its
 * controller builds (vllm-project/production-stack: operator/internal/controller/vllmruntime_controller.go
 * @ a6c01db0): `MODEL --host 0.0.0.0 --port PORT`, then the LoRA / tool switches, chunked prefill and
 * prefix caching (always one of `--x` / `--no-x`), max model len, dtype, TP, max seqs, GPU memory
 * utilization, max LoRAs, `vllmConfig.extraArgs` verbatim, the chat template; VLLM_USE_V1 from
 * `vllmConfig.v1`. The image (`vllm/vllm-openai`-like) runs them as `vllm serve ARGS`.
 * The LMCache kv-transfer config the controller adds is not emulated (said in a note).
 */
import type { Node } from 'yaml';
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArgToken } from './launch-command.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { kubernetesEnv } from './kubernetes.js';
import { locOf, mapGet, mapPath, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

export function isVllmRuntime(y: YamlFile, doc: Node): boolean {
  return scalarText(y, mapGet(doc, 'kind')) === 'VLLMRuntime' && (scalarText(y, mapGet(doc, 'apiVersion')) ?? '').startsWith('production-stack.vllm.ai/');
}

export function launchesFromVllmRuntime(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  const spec = mapGet(doc, 'spec');
  const model = mapGet(spec, 'model');
  const cfg = mapGet(spec, 'vllmConfig');
  const here = locOf(y, spec ?? doc);
  const tokens: ArgToken[] = [];
  const word = (text: string, at: SourceLocation | undefined) => tokens.push(at ? { text, at } : { text });
  const get = (n: Node | undefined, key: string) => ({ text: scalarText(y, mapGet(n, key)), at: locOf(y, mapGet(n, key)) });
  const on = (n: Node | undefined, key: string) => ['true', 'True'].includes(get(n, key).text ?? '');
  const positive = (n: Node | undefined, key: string) => Number(get(n, key).text ?? 0) > 0;
  word('vllm', here);
  word('serve', here);
  word(get(model, 'modelURL').text ?? '', get(model, 'modelURL').at ?? here);
  word('--host', here);
  word('0.0.0.0', here);
  word('--port', get(cfg, 'port').at ?? here);
  word(get(cfg, 'port').text ?? '0', get(cfg, 'port').at ?? here);
  if (on(model, 'enableLoRA')) word('--enable-lora', get(model, 'enableLoRA').at);
  if (on(model, 'enableTool')) word('--enable-auto-tool-choice', get(model, 'enableTool').at);
  if (get(model, 'toolCallParser').text) {
    word('--tool-call-parser', get(model, 'toolCallParser').at);
    word(get(model, 'toolCallParser').text ?? '', get(model, 'toolCallParser').at);
  }
  word(on(cfg, 'enableChunkedPrefill') ? '--enable-chunked-prefill' : '--no-enable-chunked-prefill', get(cfg, 'enableChunkedPrefill').at ?? here);
  word(on(cfg, 'enablePrefixCaching') ? '--enable-prefix-caching' : '--no-enable-prefix-caching', get(cfg, 'enablePrefixCaching').at ?? here);
  const valued: [Node | undefined, string, string, (n: Node | undefined, k: string) => boolean][] = [
    [model, 'maxModelLen', '--max-model-len', positive],
    [model, 'dtype', '--dtype', (n, k) => Boolean(get(n, k).text)],
    [cfg, 'tensorParallelSize', '--tensor-parallel-size', positive],
    [model, 'maxNumSeqs', '--max-num-seqs', positive],
    [cfg, 'gpuMemoryUtilization', '--gpu_memory_utilization', (n, k) => Boolean(get(n, k).text)],
    [cfg, 'maxLoras', '--max_loras', positive],
  ];
  for (const [n, key, flag, present] of valued)
    if (present(n, key)) {
      word(flag, get(n, key).at);
      word(get(n, key).text ?? '', get(n, key).at);
    }
  for (const item of seqItems(mapGet(cfg, 'extraArgs'))) word(scalarText(y, item) ?? '', locOf(y, item));
  if (get(model, 'chatTemplate').text) {
    word('--chat-template', get(model, 'chatTemplate').at);
    word('/etc/chat-template.json', get(model, 'chatTemplate').at);
  }
  const name = scalarText(y, mapPath(doc, 'metadata', 'name')) ?? '?';
  const launch = newLaunch({ file: y.file, kind: 'kubernetes', object: `VLLMRuntime/${name}` }, tokens, baseDir);
  const env = new Map<string, Located<string>>();
  const v1 = get(cfg, 'v1');
  env.set('VLLM_USE_V1', { value: on(cfg, 'v1') ? '1' : '0', ...(v1.at ?? here ? { at: v1.at ?? here } : {}) });
  for (const e of kubernetesEnv(y, mapGet(cfg, 'env'))) if (e.value) env.set(e.name, e.value);
  launch.env = env;
  const image = mapPath(spec, 'deploymentConfig', 'image', 'name');
  if (scalarText(y, image)) launch.image = { value: scalarText(y, image) ?? '', ...(locOf(y, image) ? { at: locOf(y, image) } : {}) };
  launch.notes.push({ value: 'production-stack operator VLLMRuntime: read as the args its controller builds (vllmruntime_controller.go)', ...(here ? { at: here } : {}) });
  if (on(mapGet(spec, 'lmCacheConfig'), 'enabled'))
    launch.notes.push({ value: 'lmCacheConfig.enabled: the controller adds an LMCache --kv-transfer-config and env that are not emulated', ...(here ? { at: here } : {}) });
  return [launch];
}
