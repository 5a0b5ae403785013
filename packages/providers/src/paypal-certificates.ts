/**
 * @module PayPal's signing certificates: which `PAYPAL-CERT-URL` may be fetched at all, what is
 * checked in what comes back, and the default fetch. When and how often a URL is fetched, and what
 * is remembered, is ./paypal-certificate-cache.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';

/** Fetches the PEM text at a certificate URL; rejects (or throws) on any failure. */
export type FetchCertificate = (url: string, signal: AbortSignal) => Promise<string>;

/** PayPal's API hosts, live and sandbox, the certificate URL may name (nothing else is fetched). */
export const PAYPAL_CERTIFICATE_HOSTS: readonly string[] = [
  'api.paypal.com',
  'api-m.paypal.com',
  'api.sandbox.paypal.com',
  'api-m.sandbox.paypal.com',
];

/** The path every certificate URL PayPal documents lives under. */
const CERTIFICATE_PATH = '/v1/notifications/certs/';
/** PayPal's verify-webhook-signature schema caps `cert_url` at 500 characters. */
const MAX_URL_LENGTH = 500;
/** A leaf and its issuers fit in a few KB; more is not a certificate chain. */
const MAX_PEM_LENGTH = 64 * 1024;
const MAX_CHAIN_LENGTH = 5;
/** The subject the PayPal SDKs required of the signing certificate (Java SDK: `CN=messageverificationcerts…paypal.com`). */
const PAYPAL_SIGNER = /^messageverificationcerts(?:\.[a-z0-9-]+)*\.paypal\.com$/i;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificate URL exactly as it may be fetched, or `undefined`: `https:` only, on one of
 * `hosts` (exact names, no user info, default port), under `/v1/notifications/certs/`, with no
 * query or fragment (PayPal's URLs have none; each would be one more spelling of a URL to fetch).
 * Checked before anything is fetched, so a forged header never makes the server call out elsewhere.
 */
export function certificateUrl(text: string | undefined, hosts: ReadonlySet<string>) {
  if (text === undefined || text.length > MAX_URL_LENGTH || /[?#]/.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const ok =
    url.protocol === 'https:' &&
    url.username === '' &&
    url.password === '' &&
    url.port === '' &&
    hosts.has(url.hostname) &&
    url.pathname.startsWith(CERTIFICATE_PATH) &&
    url.pathname.length > CERTIFICATE_PATH.length;
  return ok ? url.href : undefined;
}

/** A signing certificate that passed every check: its public key, and when it stops being valid. */
export interface CheckedCertificate {
  readonly key: KeyObject;
  readonly notAfter: number;
}

const within = (cert: X509Certificate, now: number) =>
  Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);

function namesPayPal(cert: X509Certificate): boolean {
  return cert.subject
    .split('\n')
    .some((part) => part.startsWith('CN=') && PAYPAL_SIGNER.test(part.slice(3)));
}

/** True when `issuer` is a current CA certificate that issued `cert` and signed it. */
function issued(cert: X509Certificate, issuer: X509Certificate, now: number): boolean {
  return (
    issuer.ca && within(issuer, now) && cert.checkIssued(issuer) && cert.verify(issuer.publicKey)
  );
}

/**
 * Checks the PEM a certificate URL served, as far as `X509Certificate` allows: the first
 * certificate (the signer) is current, names PayPal (`CN=messageverificationcerts…paypal.com`)
 * and holds an RSA key; each further certificate is a current CA that issued and signed the
 * one before it; with `anchors`, the last one is an anchor or was issued and signed by one.
 * Not checked: revocation, key usage, name or path-length constraints.
 * @returns `undefined` when any check fails or the text holds no certificate.
 */
export function checkCertificate(
  pem: string,
  now: number,
  anchors: readonly X509Certificate[] | undefined,
): CheckedCertificate | undefined {
  if (pem.length > MAX_PEM_LENGTH) return undefined;
  const texts = pem.match(PEM_CERTIFICATE) ?? [];
  if (texts.length === 0 || texts.length > MAX_CHAIN_LENGTH) return undefined;
  const chain = texts.map((text) => new X509Certificate(text));
  const leaf = chain[0]!;
  if (!within(leaf, now) || !namesPayPal(leaf) || leaf.publicKey.asymmetricKeyType !== 'rsa')
    return undefined;
  for (let i = 1; i < chain.length; i++)
    if (!issued(chain[i - 1]!, chain[i]!, now)) return undefined;
  if (anchors !== undefined) {
    const top = chain[chain.length - 1]!;
    const anchored = anchors.some(
      (anchor) =>
        (anchor.fingerprint256 === top.fingerprint256 && within(anchor, now)) ||
        issued(top, anchor, now),
    );
    if (!anchored) return undefined;
  }
  return { key: leaf.publicKey, notAfter: Date.parse(leaf.validTo) };
}

/** The default {@link FetchCertificate}: a GET with the platform's `fetch`, no redirects, 2xx only. */
export async function fetchCertificateText(url: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal, redirect: 'error' });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.text();
}
