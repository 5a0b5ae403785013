/** @module How an operator's tools (the CLI, the dashboard) say an age or a wait: its two largest units. */

/** An age, rounded down to its two largest units: `45s`, `12m`, `3h 5m`, `2d 4h` (negative reads `0s`). */
export function formatAge(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d ${h % 24}h` : `${d}d`;
}
