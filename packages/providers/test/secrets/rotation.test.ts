/**
 * Secret rotation and secrets per customer on every preset: two secrets of the preset's kind,
 * given in either order, each verify a delivery signed under it, a third does not; a resolver
 * per tenant keeps two customers' equal event ids apart through the real engine (two runs), and
 * a resolver that fails or finds nothing is a 401 that stores nothing.
 */
import { InMemoryStore, type HttpRequest } from '@webhook-idempotency/core';
import { createEngine, type Decision } from '@webhook-idempotency/core/adapter';
import type { SecretResolver } from '@webhook-idempotency/providers';
import { SIGNERS, type Signer } from './signers';

const names = Object.keys(SIGNERS);
const withTenant = (request: HttpRequest, tenant: string): HttpRequest => ({
  ...request,
  headers: { ...request.headers, 'x-tenant': tenant },
});
const answer = { status: 200, headers: {}, body: Buffer.from('{"ok":true}') };

/** A resolver that gives tenant `a` the first secret and tenant `b` the second. */
function perTenant<S>(signer: Signer<S>): SecretResolver<S> {
  const [first, second] = signer.secrets;
  const table: Record<string, S> = { a: first, b: second };
  return {
    tenant: (request) => request.headers['x-tenant'] as string | undefined,
    secrets: (tenant) => (tenant === undefined ? undefined : table[tenant]),
  };
}

it('covers every preset of the package', () => {
  expect(names).toHaveLength(44);
});

describe.each(names)('%s', (name) => {
  const signer = SIGNERS[name] as Signer<unknown>;
  const [oldSecret, newSecret, foreign] = signer.secrets;

  it.each([
    ['old first', [oldSecret, newSecret]],
    ['new first', [newSecret, oldSecret]],
  ])(
    'verifies under either of two secrets given %s, and not under a third',
    async (_order, fixed) => {
      const preset = signer.build({ fixed });
      const signedOld = signer.sign(oldSecret);
      const signedNew = signer.sign(newSecret);
      expect(await preset.verify?.(signedOld)).toBe(true);
      expect(await preset.verify?.(signedNew)).toBe(true);
      expect(await preset.verify?.(signer.sign(foreign))).toBe(false);
      // A verified delivery still has its key (or its items' keys).
      const keyed = preset.items?.(signedOld)?.[0]?.key ?? preset.key(signedOld);
      expect(keyed).toEqual(expect.anything());
    },
  );

  it('refuses a delivery signed under a secret it was not given', async () => {
    const preset = signer.build({ fixed: [newSecret] });
    expect(await preset.verify?.(signer.sign(oldSecret))).toBe(false);
    expect(await preset.verify?.(signer.sign(newSecret))).toBe(true);
  });

  it('keeps two tenants apart: the same event id under two tenants runs twice, a retry replays', async () => {
    const store = new InMemoryStore();
    const engine = createEngine({
      store,
      preset: signer.build({ resolveSecret: perTenant(signer) }),
    });
    const begin = (tenant: string, secret: unknown) =>
      engine.begin(withTenant(signer.sign(secret, 'same-1'), tenant));
    const first = await begin('a', oldSecret);
    expect(first.action).toBe('run');
    if (first.action === 'run') await first.run.finish(answer);
    const second = await begin('b', newSecret);
    expect(second.action).toBe('run');
    if (second.action === 'run') await second.run.finish(answer);
    const again = await begin('a', oldSecret);
    expect(again).toMatchObject({ action: 'respond', replayed: true });
    // Tenant b's secret does not verify as tenant a (Payme and Click refuse in their protocol).
    const forged = withTenant(signer.sign(newSecret, 'same-1'), 'a');
    const refusal = engine.config.preset?.unauthorized?.(forged)?.status ?? 401;
    expect(await engine.begin(forged)).toMatchObject({
      action: 'respond',
      replayed: false,
      response: { status: refusal },
    });
    expect(store.size).toBe(2);
  });

  it('answers 401 and stores nothing when the resolver throws, finds nothing or names no tenant', async () => {
    const store = new InMemoryStore();
    const errors: unknown[] = [];
    const resolver: SecretResolver<unknown> = {
      tenant: (request) => request.headers['x-tenant'] as string | undefined,
      secrets(tenant) {
        if (tenant === 'broken') throw new Error('database down');
        return undefined;
      },
      onError: (error) => errors.push(error),
    };
    const engine = createEngine({ store, preset: signer.build({ resolveSecret: resolver }) });
    for (const request of [
      withTenant(signer.sign(oldSecret), 'broken'),
      withTenant(signer.sign(oldSecret), 'unknown'),
      signer.sign(oldSecret),
      withTenant(signer.sign(oldSecret), 'a:b'),
    ]) {
      const decision: Decision = await engine.begin(request);
      // Payme and Click answer a refused check in their protocol (HTTP 200, an error body).
      const refusal = engine.config.preset?.unauthorized?.(request)?.status ?? 401;
      expect(decision).toMatchObject({
        action: 'respond',
        replayed: false,
        response: { status: refusal },
      });
    }
    expect(store.size).toBe(0);
    expect(errors).toEqual([new Error('database down')]);
  });
});
