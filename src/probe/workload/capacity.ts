/**
 * The server's KV capacity, read where vLLM says it: the labels of `vllm:cache_config_info` on
 * `GET /metrics` (block_size, num_gpu_blocks, enable_prefix_caching). The workload suite sizes its
 * bursts from it: they must go past what the cache holds, or eviction and preemption never happen.
 */
export interface KvCapacity {
  blockSize: number;
  numGpuBlocks: number;
  prefixCaching?: boolean;
}

/** Parses the Prometheus text; undefined when the metric or one of the size labels is missing. */
export function parseCacheConfig(metrics: string): KvCapacity | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith('vllm:cache_config_info{'));
  if (!line) return undefined;
  const labels = new Map<string, string>();
  for (const m of line.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels.set(m[1], m[2]);
  const blockSize = Number(labels.get('block_size'));
  const numGpuBlocks = Number(labels.get('num_gpu_blocks'));
  if (!(Number.isInteger(blockSize) && blockSize > 0 && Number.isInteger(numGpuBlocks) && numGpuBlocks > 0))
    return undefined;
  const pc = labels.get('enable_prefix_caching');
  return { blockSize, numGpuBlocks, ...(pc === undefined ? {} : { prefixCaching: pc === 'True' }) };
}
