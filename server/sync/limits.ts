/**
 * Rate limits of the sync server: token buckets per key (an IP address or an account), in memory, per
 * process. With several processes behind one balancer each keeps its own buckets, so the limit a client
 * meets is at most the process count times the figure here — still a bound.
 */

/** A bucket's rule: `burst` requests at once, refilled at `perMinute`. */
export interface RateRule {
  burst: number;
  perMinute: number;
}

/** The rules the server applies (per IP and per account, per action). */
export interface RateLimits {
  signupPerIp: RateRule;
  signinPerIp: RateRule;
  pushPerIp: RateRule;
  pushPerAccount: RateRule;
  /** Every other authenticated call (pull, status…), per account. */
  otherPerAccount: RateRule;
}

/** Defaults: generous for a learner's devices, tight for a script creating accounts. */
export const DEFAULT_LIMITS: RateLimits = {
  signupPerIp: { burst: 10, perMinute: 10 },
  signinPerIp: { burst: 30, perMinute: 30 },
  pushPerIp: { burst: 120, perMinute: 600 },
  pushPerAccount: { burst: 60, perMinute: 120 },
  otherPerAccount: { burst: 120, perMinute: 600 },
};

/** Limits so high no test or benchmark meets them (`rateLimits: UNLIMITED`). */
export const UNLIMITED: RateLimits = Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((k) => [k, { burst: 1e9, perMinute: 1e9 }]),
) as unknown as RateLimits;

/** A set of token buckets under one rule. */
export interface Limiter {
  /** Takes one token for `key`: 0 when allowed, else the seconds until one is free (for Retry-After). */
  take(key: string, now: number): number;
}

/**
 * Builds a limiter; buckets idle long enough to be full again are forgotten (bounded memory).
 * @example const l = createLimiter({ burst: 2, perMinute: 60 }); l.take('ip', 0); l.take('ip', 0); l.take('ip', 0) // → 1
 */
export function createLimiter(rule: RateRule, maxKeys = 100_000): Limiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = rule.perMinute / 60_000;
  return {
    take(key, now) {
      let b = buckets.get(key);
      if (b) b.tokens = Math.min(rule.burst, b.tokens + (now - b.at) * perMs);
      else {
        if (buckets.size >= maxKeys) {
          for (const [k, v] of buckets) if (v.tokens + (now - v.at) * perMs >= rule.burst) buckets.delete(k);
          // Still full: forget the oldest (Map keeps insertion order).
          if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as string);
        }
        b = { tokens: rule.burst, at: now };
        buckets.set(key, b);
      }
      b.at = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
    },
  };
}
