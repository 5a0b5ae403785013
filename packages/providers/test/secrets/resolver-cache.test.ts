/**
 * The resolver's bounds, through a preset: lookups are cached within `max` tenants and `ttlMs`,
 * unknown tenants never evict known ones and are refused without a lookup for `missTtlMs`,
 * concurrent requests of one tenant share one lookup, at most `concurrency` run at once, a slow
 * lookup is given up at `timeoutMs` (401), and a tenant the receipt key cannot carry is refused
 * without a lookup.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { SecretResolver } from '@webhook-idempotency/providers';
import { SIGNERS } from './signers';

const signer = SIGNERS.stripe!;
const [SECRET] = signer.secrets as readonly string[];
const request = (tenant: string, id = 'evt_1'): HttpRequest => {
  const signed = signer.sign(SECRET, id);
  return { ...signed, headers: { ...signed.headers, 'x-tenant': tenant } };
};

/** A resolver that knows tenants `a`…`e`, counting its lookups per tenant. */
function counting(options: Partial<SecretResolver<string>> = {}) {
  const lookups: string[] = [];
  const resolver: SecretResolver<string> = {
    tenant: (r) => r.headers['x-tenant'] as string | undefined,
    secrets(tenant) {
      lookups.push(tenant ?? '');
      return /^[a-e]$/.test(tenant ?? '') ? SECRET : undefined;
    },
    ...options,
  };
  return { lookups, resolver };
}

let now = 1_767_225_600_000;
const clock = () => now;
const build = (resolveSecret: SecretResolver<string>) =>
  providers.stripe({ resolveSecret, clock, toleranceSeconds: 10 ** 9 });

it('caches a found tenant until ttlMs, then looks it up again', async () => {
  const { lookups, resolver } = counting({ cache: { ttlMs: 1000 } });
  const preset = build(resolver);
  expect(await preset.verify?.(request('a'))).toBe(true);
  expect(await preset.verify?.(request('a'))).toBe(true);
  expect(lookups).toEqual(['a']);
  now += 1000;
  expect(await preset.verify?.(request('a'))).toBe(true);
  expect(lookups).toEqual(['a', 'a']);
});

it('keeps at most max tenants: the least recently used is looked up again', async () => {
  const { lookups, resolver } = counting({ cache: { max: 2 } });
  const preset = build(resolver);
  for (const tenant of ['a', 'b', 'c', 'a']) await preset.verify?.(request(tenant));
  // `a` was pushed out by `c` (max 2), so it is looked up again; `c` is still held.
  expect(lookups).toEqual(['a', 'b', 'c', 'a']);
  await preset.verify?.(request('c'));
  expect(lookups).toHaveLength(4);
});

it('never lets unknown tenants evict known ones, and refuses them without a lookup for missTtlMs', async () => {
  const { lookups, resolver } = counting({ cache: { max: 1, missTtlMs: 5000 } });
  const preset = build(resolver);
  expect(await preset.verify?.(request('a'))).toBe(true);
  for (const tenant of ['x1', 'x2', 'x3', 'x3'])
    expect(await preset.verify?.(request(tenant))).toBe(false);
  expect(await preset.verify?.(request('a'))).toBe(true);
  // One lookup for `a`, one per unknown tenant; `x3` the second time came from the miss cache.
  expect(lookups).toEqual(['a', 'x1', 'x2', 'x3']);
  now += 5000;
  expect(await preset.verify?.(request('x3'))).toBe(false);
  expect(lookups).toEqual(['a', 'x1', 'x2', 'x3', 'x3']);
});

it('shares one lookup among concurrent requests of a tenant, and runs at most `concurrency` at once', async () => {
  let running = 0;
  let most = 0;
  const lookups: string[] = [];
  const preset = build({
    tenant: (r) => r.headers['x-tenant'] as string,
    concurrency: 2,
    async secrets(tenant) {
      lookups.push(tenant ?? '');
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      return SECRET;
    },
  });
  const tenants = ['a', 'a', 'a', 'b', 'c', 'd', 'e'];
  const results = await Promise.all(tenants.map((tenant) => preset.verify?.(request(tenant))));
  expect(results.every((ok) => ok === true)).toBe(true);
  expect(lookups.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(most).toBe(2);
});

it('gives up a lookup at timeoutMs (401), aborts its signal and reports it', async () => {
  const errors: unknown[] = [];
  let aborted = false;
  const preset = build({
    tenant: () => 'a',
    timeoutMs: 30,
    onError: (error) => errors.push(error),
    secrets: (_tenant, { signal }) =>
      new Promise<string>(() => {
        signal.addEventListener('abort', () => {
          aborted = true;
        });
      }),
  });
  expect(await preset.verify?.(request('a'))).toBe(false);
  expect(aborted).toBe(true);
  expect(String(errors[0])).toMatch(/longer than 30 ms/);
});

it('refuses a tenant the receipt key cannot carry, without a lookup', async () => {
  const { lookups, resolver } = counting();
  const preset = build(resolver);
  for (const tenant of ['a:b', '', 'x'.repeat(65), 'a b', 'é'])
    expect(await preset.verify?.(request(tenant))).toBe(false);
  expect(lookups).toEqual([]);
});

it("puts the tenant before the preset's own id, so equal ids of two tenants are two keys", async () => {
  const { resolver } = counting();
  const preset = build(resolver);
  const [a, b] = [request('a'), request('b')];
  await preset.verify?.(a);
  await preset.verify?.(b);
  expect([preset.key(a), preset.key(b)]).toEqual(['a:evt_1', 'b:evt_1']);
  // A request no verify passed has no key under a tenant-scoped preset.
  expect(preset.key(request('a'))).toBeUndefined();
});

it('treats a secret of the wrong kind from the resolver as a failed lookup', async () => {
  const errors: unknown[] = [];
  const preset = build({
    tenant: () => 'a',
    secrets: () => 42 as unknown as string,
    onError: (error) => errors.push(error),
  });
  expect(await preset.verify?.(request('a'))).toBe(false);
  expect(errors[0]).toBeInstanceOf(ConfigError);
});

it('refuses a resolver and fixed secrets together, and a preset with neither', () => {
  expect(() =>
    providers.stripe({ secret: 'x', resolveSecret: { secrets: () => 'x' } } as never),
  ).toThrow(ConfigError);
  expect(() => providers.stripe({} as never)).toThrow(/"secret" \(one, or several/);
  expect(() => providers.stripe({ secret: [] })).toThrow(ConfigError);
  expect(() => build({ secrets: () => 'x', cache: { max: -1 } })).toThrow(/cache\.max/);
});
