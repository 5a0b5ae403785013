/**
 * @module Where the PayPal preset gets a signing certificate for a URL that passed the host check,
 * and what it remembers. The URL comes from a header read before anything is verified, so every
 * bound here holds against a sender who signs nothing: fetches are few (a budget per minute and a
 * cap on those running at once), a failure is remembered for a while, and only a certificate that
 * verified a delivery's signature joins the certificates kept for good.
 */
import type { X509Certificate } from 'node:crypto';
import {
  type CheckedCertificate,
  checkCertificate,
  type FetchCertificate,
} from './paypal-certificates';

/** How many certificate URLs are kept, of each kind (proven, recently fetched): PayPal rotates rarely. */
export const CERTIFICATE_CACHE_SIZE = 16;
/** At most this many certificate fetches start in any minute (by the preset's clock). */
export const CERTIFICATE_FETCHES_PER_MINUTE = 10;
/** At most this many certificate fetches run at once. */
export const CERTIFICATE_FETCHES_AT_ONCE = 2;
/** How long a URL whose fetch or check failed is refused without fetching it again, in milliseconds. */
export const FAILED_CERTIFICATE_MS = 60_000;
const MINUTE_MS = 60_000;

/** Settings of a {@link certificateSource}. */
export interface CertificateSourceOptions {
  readonly fetch: FetchCertificate;
  readonly timeoutMs: number;
  readonly anchors: readonly X509Certificate[] | undefined;
  readonly now: () => number;
}

/** The certificates of one preset: looked up per delivery, confirmed by a verified signature. */
export interface CertificateSource {
  /**
   * The checked certificate at `url`, or `undefined`: its fetch or check failed (now or within
   * the last {@link FAILED_CERTIFICATE_MS}), it is past its validity, or fetching it now would
   * exceed the fetch budget (refused without a fetch; PayPal retries).
   */
  at(url: string): Promise<CheckedCertificate | undefined>;
  /** `certificate`, from `url`, verified a delivery's signature: keep it among the proven ones. */
  proven(url: string, certificate: CheckedCertificate): void;
}

/** A map that keeps its `size` most recently used entries. */
class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }
  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** What a fetch of a URL gave: a checked certificate, or nothing until `until`. */
interface Fetched {
  readonly certificate: CheckedCertificate | undefined;
  readonly until: number;
}

/** Runs `fetch` for at most `timeoutMs`, aborting its signal at the deadline; rejects on failure. */
function fetchWithin(fetch: FetchCertificate, url: string, timeoutMs: number): Promise<string> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no certificate from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref?.();
  });
  return Promise.race([fetch(url, controller.signal), deadline]).finally(() => clearTimeout(timer));
}

/** The fetch budget: starts in the last minute, and fetches running. */
class FetchBudget {
  private starts: number[] = [];
  running = 0;
  /** Takes one fetch from the budget at `now`; `false` when none is left. */
  take(now: number): boolean {
    this.starts = this.starts.filter((at) => at > now - MINUTE_MS && at <= now);
    if (this.running >= CERTIFICATE_FETCHES_AT_ONCE) return false;
    if (this.starts.length >= CERTIFICATE_FETCHES_PER_MINUTE) return false;
    this.starts.push(now);
    this.running++;
    return true;
  }
}

/**
 * The certificates of one preset. Concurrent deliveries naming one URL share one fetch. What a
 * fetch gave is remembered among the {@link CERTIFICATE_CACHE_SIZE} most recent URLs (a checked
 * certificate until its validity ends, a failure for {@link FAILED_CERTIFICATE_MS}); a certificate
 * that verified a signature is kept apart, among as many proven ones, which no unsigned request
 * can push out.
 */
export function certificateSource(options: CertificateSourceOptions): CertificateSource {
  const { fetch, timeoutMs, anchors, now } = options;
  const proven = new Recent<CheckedCertificate>(CERTIFICATE_CACHE_SIZE);
  const fetched = new Recent<Fetched>(CERTIFICATE_CACHE_SIZE);
  const pending = new Map<string, Promise<CheckedCertificate | undefined>>();
  const budget = new FetchBudget();

  const load = async (url: string) => {
    let certificate: CheckedCertificate | undefined;
    try {
      const pem = await fetchWithin(fetch, url, timeoutMs);
      certificate = typeof pem === 'string' ? checkCertificate(pem, now(), anchors) : undefined;
    } catch {
      certificate = undefined;
    } finally {
      budget.running--;
    }
    fetched.set(url, {
      certificate,
      until: certificate?.notAfter ?? now() + FAILED_CERTIFICATE_MS,
    });
    return certificate;
  };
  const current = (certificate: CheckedCertificate | undefined) =>
    certificate !== undefined && now() <= certificate.notAfter ? certificate : undefined;

  return {
    async at(url) {
      const good = proven.get(url);
      if (good !== undefined) {
        if (current(good)) return good;
        proven.delete(url);
      }
      const known = fetched.get(url);
      if (known !== undefined && now() < known.until) return current(known.certificate);
      let entry = pending.get(url);
      if (entry === undefined) {
        if (!budget.take(now())) return undefined;
        entry = load(url);
        pending.set(url, entry);
        // Settled: later lookups read what it gave from `fetched` (load never rejects).
        void entry.then(() => pending.delete(url));
      }
      return current(await entry);
    },
    proven(url, certificate) {
      proven.set(url, certificate);
      fetched.delete(url);
    },
  };
}
