/**
 * A question about a launch, answered once per Deployment object. Many hazards ask the same
 * question of one launch (which attention backend, which drafter), and a Deployment is not changed
 * once assembled: a run-time variant (runtime-candidates.ts) is a new object with its own answer.
 */
import type { Deployment } from './deployment.js';

export function perDeployment<T>(answer: (d: Deployment) => T): (d: Deployment) => T {
  const answers = new WeakMap<Deployment, { value: T }>();
  return (d) => {
    let a = answers.get(d);
    if (!a) answers.set(d, (a = { value: answer(d) }));
    return a.value;
  };
}
