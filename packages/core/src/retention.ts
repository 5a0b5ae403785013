/**
 * @module The retry windows of the presets a store serves: an adapter built with a preset records
 * its `retentionDays` on the guard's store, and `guard.purge` refuses to delete that provider's
 * receipts sooner (a redelivery after the purge would run the handler again).
 */

/** Per store: provider → the longest retention a preset served on it asked for. */
const windows = new WeakMap<object, Map<string, number>>();

/** Records that `provider`'s receipts on `store` must be kept `days` days (the longest one wins). */
export function registerRetention(store: object, provider: string, days: number): void {
  if (!Number.isFinite(days) || days <= 0) return;
  let byProvider = windows.get(store);
  if (!byProvider) {
    byProvider = new Map();
    windows.set(store, byProvider);
  }
  byProvider.set(provider, Math.max(days, byProvider.get(provider) ?? 0));
}

/** The providers whose recorded window on `store` is longer than `retentionDays` (only `provider`, when given). */
export function windowsLongerThan(
  store: object,
  retentionDays: number,
  provider: string | undefined,
): Array<[provider: string, days: number]> {
  const byProvider = windows.get(store);
  if (!byProvider) return [];
  return [...byProvider].filter(
    ([name, days]) => (provider === undefined || name === provider) && retentionDays < days,
  );
}
