/**
 * Exact binomial bounds (Clopper–Pearson, one-sided) — the rate bounds the probe reports.
 * Computed by bisection on the binomial CDF in log space: exact to ~1e-12, no special functions.
 */

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k >= n) return 1;
  if (k < 0) return 0;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  // terms t_i = C(n,i) p^i q^(n-i), summed with a running log-sum-exp
  let logTerm = n * lq; // i = 0
  let maxLog = logTerm;
  const logs = [logTerm];
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i) + lp - lq;
    logs.push(logTerm);
    if (logTerm > maxLog) maxLog = logTerm;
  }
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - maxLog);
  return Math.min(1, Math.exp(maxLog + Math.log(sum)));
}

/**
 * One-sided Clopper–Pearson upper bound at confidence 1−α: the largest p with P(X ≤ k | n, p) ≥ α.
 * k = 0 gives 1 − α^(1/n), the exact form of the rule of three (≈ 3/n at 95%).
 */
export function clopperPearsonUpper(k: number, n: number, alpha = 0.05): number {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  if (k === 0) return 1 - Math.pow(alpha, 1 / n);
  let lo = k / n;
  let hi = 1;
  for (let it = 0; it < 100; it++) {
    const mid = (lo + hi) / 2;
    if (binomialCdf(k, n, mid) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Fewest clean trials for the k = 0 bound to reach `target` (rule of three: ≈ 3/target at 95%). */
export function trialsForZeroEventBound(target: number, alpha = 0.05): number {
  return Math.ceil(Math.log(alpha) / Math.log1p(-target));
}
