/**
 * Every preset factory `@webhook-idempotency/providers` exports has a `send` mapping, and every
 * mapping is a preset factory: a new preset fails here until `send` can sign for it. Each mapping
 * names the flags it signs with (shown by `send --list`).
 */
import * as providers from '@webhook-idempotency/providers';
import { WIRED } from '../src/send/signers';

/** The exported functions that make a preset (not constants such as `DISCORD_INTERACTION_TYPES`). */
const factories = Object.entries(providers)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => name)
  .sort();

it('every preset factory has a send mapping, and nothing else does', () => {
  expect(factories.length).toBeGreaterThanOrEqual(42);
  expect(Object.keys(WIRED).sort()).toEqual(factories);
});

it.each(factories)('%s names the flags it signs with', (name) => {
  expect(WIRED[name]?.needs).toMatch(/^--[a-z-]+/);
});
