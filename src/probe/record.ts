/**
 * `--save-golden` without a reference: record a server you trust (typically the same target
 * before an upgrade) as a golden for later probes. Failed exchanges are recorded as failed, and
 * the caller reports the recording as incomplete.
 */
import { ProbeClient, RetryBudget } from './client.js';
import { runOrdered } from './pool.js';
import { planPrompts, promptTokensFor } from './plan.js';
import { recordExchange, RECORDING_FORMAT, type RecordedExchange, type Recording } from './recording.js';
import type { ProbeConfig } from './run.js';
import { ServerApi } from './server-api.js';

export interface RecordOutcome {
  recording: Recording;
  failed: number;
  errors: string[];
}

export async function recordGolden(
  config: Omit<ProbeConfig, 'reference' | 'golden'>,
): Promise<RecordOutcome> {
  const api = new ServerApi(
    new ProbeClient({
      baseUrl: config.target.url,
      apiKey: config.target.apiKey,
      budget: new RetryBudget(config.retryBudget ?? Math.max(20, 4 * config.requests)),
      seed: config.seed,
      ...config.client,
    }),
  );
  const errors: string[] = [];
  try {
    const models = await api.resolveModel();
    if (!models.ok) errors.push(models.error);
    const specs = planPrompts(config, api.maxModelLen);
    const exchanges: RecordedExchange[] = [];
    await runOrdered(
      specs.length,
      config.concurrency,
      async (index, signal) => {
        const spec = specs[index];
        const prompt = await promptTokensFor(spec, index, config.seed, config.corpus, api, signal);
        if (!prompt.ok)
          return { spec, prompt: [] as number[], result: { ok: false as const, error: prompt.error } };
        const gen = await api.generate(
          prompt.value,
          { maxTokens: spec.maxTokens, logprobs: config.logprobs, seed: config.seed, requestFields: config.requestFields },
          signal,
        );
        return {
          spec,
          prompt: prompt.value,
          result: gen.ok ? { ok: true as const, value: gen.value } : { ok: false as const, error: gen.error },
        };
      },
      (_i, r) => {
        if (!r.result.ok) errors.push(`${r.spec.id}: ${r.result.error}`);
        if (r.prompt.length > 0)
          exchanges.push(recordExchange(r.spec.id, r.prompt, r.spec.maxTokens, r.result));
        return true;
      },
    );
    const recording: Recording = {
      format: RECORDING_FORMAT,
      version: 1,
      model: api.model,
      server: api.url,
      suite: config.suite,
      window: config.window,
      pageSize: config.pageSize,
      logprobs: config.logprobs,
      seed: config.seed,
      exchanges,
    };
    return { recording, failed: specs.length - exchanges.filter((e) => e.steps).length, errors };
  } finally {
    await api.client.close();
  }
}
