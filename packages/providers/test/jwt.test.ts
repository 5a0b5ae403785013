/**
 * The internal JWT helper of the token-signing presets: tokens made here with `node:crypto`
 * alone (not the helper, not the test kit), so a mistake in the helper cannot hide in both.
 */
import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { bearerToken, type JwtAlgorithm, jwtSignatureValid, jwtTimely, parseJwt } from '../src/jwt';

const NOW = 1_765_000_000;
const now = () => NOW * 1000;
const SECRET = Buffer.from('qstash-signing-key');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
const ed = generateKeyPairSync('ed25519');

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWS signed as RFC 7515 says, by algorithm. */
function token(alg: string, key: KeyObject | Buffer | null, claims: object = { sub: 'x' }) {
  const input = `${part({ alg, typ: 'JWT' })}.${part(claims)}`;
  const bytes = Buffer.from(input);
  let signature = Buffer.alloc(0);
  if (alg === 'HS256')
    signature = createHmac('sha256', key as Buffer)
      .update(bytes)
      .digest();
  if (alg === 'RS256') signature = sign('sha256', bytes, key as KeyObject);
  if (alg === 'ES256')
    signature = sign('sha256', bytes, { key: key as KeyObject, dsaEncoding: 'ieee-p1363' });
  if (alg === 'EdDSA') signature = sign(null, bytes, key as KeyObject);
  return `${input}.${signature.toString('base64url')}`;
}

const ALL: JwtAlgorithm[] = ['HS256', 'RS256', 'ES256', 'EdDSA'];

describe('jwt: signatures', () => {
  it.each([
    ['HS256', SECRET, SECRET],
    ['RS256', rsa.privateKey, rsa.publicKey],
    ['ES256', p256.privateKey, p256.publicKey],
    ['EdDSA', ed.privateKey, ed.publicKey],
  ] as const)(
    '%s: verifies its own signature, refuses another key and a changed claim',
    (alg, signer, key) => {
      const good = parseJwt(token(alg, signer), ALL);
      expect(good?.alg).toBe(alg);
      expect(jwtSignatureValid(good!, key)).toBe(true);
      const other =
        alg === 'HS256' ? Buffer.from('other') : generateKeyPairSync('ed25519').publicKey;
      expect(jwtSignatureValid(good!, other)).toBe(false);
      const [h, , s] = token(alg, signer).split('.');
      const changed = parseJwt(`${h}.${part({ sub: 'y' })}.${s}`, ALL);
      expect(jwtSignatureValid(changed!, key)).toBe(false);
    },
  );

  it('never mixes key kinds: HS256 signed with the public key bytes is refused, ES256 wants P-256', () => {
    const pem = Buffer.from(rsa.publicKey.export({ format: 'pem', type: 'spki' }) as string);
    const confused = parseJwt(token('HS256', pem), ALL)!;
    expect(jwtSignatureValid(confused, rsa.publicKey)).toBe(false);
    const rsToken = parseJwt(token('RS256', rsa.privateKey), ALL)!;
    expect(jwtSignatureValid(rsToken, pem)).toBe(false);
    expect(jwtSignatureValid(rsToken, rsa.privateKey)).toBe(false);
    const es384 = parseJwt(token('ES256', p384.privateKey), ALL)!;
    expect(jwtSignatureValid(es384, p384.publicKey)).toBe(false);
    // A DER ECDSA signature is not the JWS spelling.
    const input = `${part({ alg: 'ES256' })}.${part({})}`;
    const der = sign('sha256', Buffer.from(input), p256.privateKey).toString('base64url');
    expect(jwtSignatureValid(parseJwt(`${input}.${der}`, ALL)!, p256.publicKey)).toBe(false);
  });

  it.each([
    ['alg none, even when listed', `${part({ alg: 'none' })}.${part({})}.`, ['none']],
    ['alg not in the allow-list', token('RS256', rsa.privateKey), ['HS256']],
    ['two parts', `${part({ alg: 'HS256' })}.${part({})}`, ALL],
    ['a header that is an array', `${part(['HS256'])}.${part({})}.AAAA`, ALL],
    ['claims that are not JSON', `${part({ alg: 'HS256' })}.bm90IGpzb24.AAAA`, ALL],
    ['padding in a part', `${part({ alg: 'HS256' })}=.${part({})}.AAAA`, ALL],
    ['a crit header', `${part({ alg: 'HS256', crit: ['b64'] })}.${part({})}.AAAA`, ALL],
    ['an empty signature', `${part({ alg: 'HS256' })}.${part({})}.`, ALL],
  ])('parseJwt refuses %s', (_label, text, allowed) => {
    expect(parseJwt(text, allowed as JwtAlgorithm[])).toBeUndefined();
  });
});

describe('jwt: time claims', () => {
  const rules = { now, tolerance: 10 };
  it.each([
    [{}, {}, true],
    [{ exp: NOW + 60 }, {}, true],
    [{ exp: NOW - 5 }, {}, true], // within tolerance
    [{ exp: NOW - 11 }, {}, false],
    [{ nbf: NOW + 5 }, {}, true],
    [{ nbf: NOW + 11 }, {}, false],
    [{ iat: NOW + 11 }, {}, false], // issued in the future
    [{ exp: 'soon' }, {}, false],
    [{ iat: NOW }, { required: ['exp'] }, false],
    [{ iat: NOW - 300 }, { maxAgeSeconds: 300 }, true],
    [{ iat: NOW - 311 }, { maxAgeSeconds: 300 }, false],
    [{}, { maxAgeSeconds: 300 }, false],
  ] as const)('%j with %j: %s', (claims, more, expected) => {
    expect(jwtTimely(claims, { ...rules, ...more })).toBe(expected);
  });
});

describe('jwt: bearer tokens', () => {
  it.each([
    ['Bearer a.b.c', 'a.b.c'],
    ['bearer  a.b.c ', 'a.b.c'],
    ['Basic abc', undefined],
    ['Bearer a b', undefined],
    [undefined, undefined],
  ])('%j gives %j', (value, expected) => {
    expect(bearerToken(value)).toBe(expected);
  });
});
