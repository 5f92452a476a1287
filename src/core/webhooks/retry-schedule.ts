/**
 * Waits between attempts: the n-th retry waits `WEBHOOK_RETRY_DELAYS_MS[n-1]` after the failed attempt
 * (the Standard Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about 27.6 h in all); after the
 * last one fails the delivery is given up.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
