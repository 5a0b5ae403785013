/** The age every operator's tool prints (the CLI's lists, the dashboard's pages): its two largest units. */
import { formatAge } from '@webhook-idempotency/core/operations';

it.each([
  [-5_000, '0s'],
  [999, '0s'],
  [45_000, '45s'],
  [12 * 60_000 + 59_000, '12m'],
  [3 * 3_600_000, '3h'],
  [3 * 3_600_000 + 5 * 60_000 + 30_000, '3h 5m'],
  [2 * 86_400_000, '2d'],
  [2 * 86_400_000 + 4 * 3_600_000 + 59 * 60_000, '2d 4h'],
])('formatAge(%d) is %s', (ms, text) => {
  expect(formatAge(ms)).toBe(text);
});
