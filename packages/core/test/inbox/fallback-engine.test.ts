/**
 * The inbox engine of an endpoint with a `fallback` (fetch, Lambda): the fallback must be a
 * function or nothing, and must be there when some requests are handed on.
 */
import { createFallbackInboxEngine } from '../../src/adapter';
import { InMemoryInbox } from '../../src/inbox';

const options = { inbox: new InMemoryInbox(), provider: 'p', key: () => 'k', unverified: true };

it('refuses a fallback that is not a function, naming it', () => {
  expect(() => createFallbackInboxEngine(options, 'next')).toThrow(
    expect.objectContaining({ name: 'ConfigError', option: 'fallback' }),
  );
});

it('refuses to hand requests on with nowhere to hand them, naming onMissingKey', () => {
  expect(() =>
    createFallbackInboxEngine({ ...options, onMissingKey: 'passthrough' }, undefined),
  ).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'onMissingKey' }));
});

it('builds the engine: with a fallback a keyless request is handed on, without one a keyed request is stored', async () => {
  const request = {
    method: 'POST',
    url: '/',
    headers: {},
    rawBody: Buffer.from('{}'),
    body: {},
    native: 0,
  };
  const handedOn = createFallbackInboxEngine(
    { ...options, key: () => undefined, onMissingKey: 'passthrough' },
    () => undefined,
  );
  expect(await handedOn.accept(request)).toEqual({ action: 'pass' });
  const stored = await createFallbackInboxEngine(options, undefined).accept(request);
  expect(stored).toEqual(expect.objectContaining({ action: 'respond', stored: true }));
});
