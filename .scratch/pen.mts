import { createBackend, presetSettings } from '../src/engine/emulate.js';
import { Engine } from '../src/engine/engine.js';
import { randomModel, tinyConfig } from '../src/engine/random-init.js';
import { GREEDY } from '../src/engine/sampling.js';
import { NO_PENALTIES } from '../src/engine/sampling-penalties.js';
import { Scheduler } from '../src/engine/scheduler.js';
import { specConfig } from '../src/engine/spec/config.js';
const model = randomModel(tinyConfig(), { seed: 11, std: 0.08 });
const text = 'the cat sat on the mat. the cat sat on the hat. the dog sat on the mat. the cat';
const prompt = [256, ...new TextEncoder().encode(text)];
function run(spec: any, penalties: any) {
  const engine = new Engine(model, { precision: 'bf16', kvDtype: 'bfloat16', pageSize: 16, cacheKind: 'paged', backend: createBackend(presetSettings('reference')), numSpeculativeTokens: spec?.numSpeculativeTokens ?? 0 });
  const s = new Scheduler(engine, { spec, maxNumSeqs: 1, maxModelLen: 256 });
  const ids: number[] = [];
  s.submit({ promptIds: prompt, maxTokens: 40, sampling: GREEDY, seed: 0, ignoreEos: true, penalties }, { onTokens: (t: any) => ids.push(...t.map((x: any) => x.id)), onFinish: () => {} });
  s.runToCompletion();
  return { ids, acc: s.counters.specAcceptedTokens };
}
const ng = specConfig('ngram', 4, { promptLookupMin: 2, promptLookupMax: 4 });
const base = run(null, NO_PENALTIES).ids;
for (const p of [{ repetition: 1.05, frequency: 0, presence: 0 }, { repetition: 1, frequency: 0.1, presence: 0 }, { repetition: 1, frequency: 0.05, presence: 0 }, { repetition: 1, frequency: 0, presence: 0.1 }, { repetition: 2, frequency: 0, presence: 0 }]) {
  const pl = run(null, p).ids; const f = run({ ...ng, faultModel: 'specdec-penalties-dropped' }, p); const ok = run(ng, p);
  console.log(JSON.stringify(p), 'changes', JSON.stringify(pl) !== JSON.stringify(base), 'accFixed', ok.acc, 'eqFixed', JSON.stringify(ok.ids) === JSON.stringify(pl), 'accFault', f.acc, 'faultDiffers', JSON.stringify(f.ids) !== JSON.stringify(pl));
}
console.log(String.fromCharCode(...base.filter(x=>x<256)));
