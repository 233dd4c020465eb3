/**
 * How many probe rounds a PASS needs before it is believed, by why the cell runs.
 *
 * Silent-corruption probes err one way: a corrupt server sometimes looks clean (a "miss"), a
 * clean one is not called corrupt. So a FAIL is trusted at once, and a PASS is re-probed (fresh
 * prompts, same server: requests, not launches) only until it is believable — a sequential
 * test on the posterior that the configuration fails after n PASS rounds in a row:
 *
 *   P(fails | n PASS) = p·qⁿ / (p·qⁿ + 1 − p) ≤ ε    ⇔    n ≥ log(ε(1−p) / (p(1−ε))) / log q
 *
 * with q the miss rate of one round and p the prior that a cell run for this purpose fails.
 * A wrong PASS during localization is a wrong turn (and a wrong remedy in verification), so
 * those cells need a small ε at p ≈ ½. A covering row rarely fails (p ≈ 0.1), but in a tight
 * array it is often the only row holding its fault's tuple, so a missed one loses the fault:
 * ε is smaller there, which the low prior partly pays for (at q = 0.05: two rounds where
 * localization takes three; at q = 0.01 two for both; one PASS round suffices from q ≈ 0.001).
 * Research note §2.4: "trust FAIL, re-probe PASS" reached 99.8 % exact at a 10 % miss rate
 * where single shots reached 60 %.
 */
export type Purpose = 'maximal' | 'covering' | 'search' | 'verify' | 'generalize';

interface Prior {
  /** Prior probability that a cell run for this purpose fails. */
  fail: number;
  /** Tolerated probability that a believed PASS is a miss. */
  error: number;
}

const PRIORS: Record<Purpose, Prior> = {
  // a missed FAIL of the most-enabled launch sends the run to a whole covering array
  maximal: { fail: 0.5, error: 0.001 },
  covering: { fail: 0.1, error: 0.0005 },
  search: { fail: 0.5, error: 0.001 },
  verify: { fail: 0.5, error: 0.001 },
  generalize: { fail: 0.5, error: 0.001 },
};

/** `confirm: auto` (rounds from the miss rate) or a fixed number of re-probes for every PASS. */
export type ConfirmPolicy = { kind: 'auto'; missRate: number } | { kind: 'fixed'; reprobes: number };

/** Probe rounds (1 = no re-probe) a PASS must survive for this purpose. */
export function passRounds(policy: ConfirmPolicy, purpose: Purpose): number {
  if (policy.kind === 'fixed') return policy.reprobes + 1;
  const q = policy.missRate;
  if (q <= 0) return 1;
  const { fail: p, error: e } = PRIORS[purpose];
  const needed = Math.log((e * (1 - p)) / (p * (1 - e))) / Math.log(q);
  return Math.max(1, Math.ceil(needed - 1e-9));
}

/** The most rounds any purpose can ask for: the reference records one golden per round. */
export function maxPassRounds(policy: ConfirmPolicy): number {
  return Math.max(...(Object.keys(PRIORS) as Purpose[]).map((p) => passRounds(policy, p)));
}

/** Posterior that a configuration fails after `rounds` PASS rounds in a row (for reports). */
export function missPosterior(policy: ConfirmPolicy, purpose: Purpose, rounds: number): number | undefined {
  if (policy.kind === 'fixed') return undefined;
  const { fail: p } = PRIORS[purpose];
  const m = p * policy.missRate ** rounds;
  return m / (m + 1 - p);
}
