/**
 * @module The outbox storm's receiving side, started by the test on 127.0.0.1: an HTTP server
 * (the handlers' direct calls and the outbox's HTTP messages) and an SMTP server (the outbox's
 * emails, through the `smtp-server` package). Both count what arrives per message (the event it
 * names and the effect) and by key: every key each message arrived with, how often, how often
 * it was accepted, and every arrival without a key. Both answer after a short delay, so a send is
 * in flight for a while (a kill or a database restart meets it), and both refuse the first
 * arrival of every n-th message with a temporary failure (HTTP 503, SMTP 451), so that retries
 * under the same key happen in every run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import {
  DIRECT_EFFECT,
  DIRECT_PATH,
  EMAIL_EFFECT,
  EVENT_HEADER,
  HTTP_EFFECT,
  MESSAGE_ID_DOMAIN,
  OUTBOX_PATH,
} from './config';

/** What arrived for one message (one event's one effect). */
export interface Tally {
  /** Arrivals (requests, mails), refused ones included. */
  requests: number;
  /** Arrivals answered 2xx / 250. */
  accepted: number;
  /** Each key it arrived with, and how often. */
  readonly keys: Map<string, number>;
}

/** What the receivers counted. */
export interface Arrivals {
  /** `effect event` (`notify evt_000001`) → its tally. */
  readonly messages: ReadonlyMap<string, Tally>;
  /** Arrivals without a key (no `Idempotency-Key`; an email with neither that header nor a Message-ID). */
  readonly withoutKey: number;
  /** Arrivals that name no event (or an unknown path): never expected. */
  readonly unidentified: number;
  /** Emails whose Message-ID is not `<Idempotency-Key@domain>`. */
  readonly messageIdMismatches: number;
  /** First arrivals refused on purpose (temporary failures). */
  readonly refused: number;
}

export interface ReceiverOptions {
  /** Milliseconds each answer waits. */
  readonly answerDelayMs: number;
  /** The first arrival of every n-th outbox message (in order of first arrival) is refused; 0: none. */
  readonly refuseFirstEvery: number;
}

/** The two receivers, running. */
export interface Receivers extends Arrivals {
  /** The HTTP receiver's base URL. */
  readonly httpUrl: string;
  readonly smtpPort: number;
  /** Outbox sends (HTTP and SMTP) being answered now. */
  readonly dispatchesInFlight: number;
  /** The tally of one message, if anything arrived for it. */
  tally(effect: string, event: string): Tally | undefined;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The headers of a raw email (up to the first empty line), unfolded, names in lower case. */
function mailHeaders(raw: Buffer): Map<string, string> {
  const text = raw.toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  const unfolded = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Starts both receivers on free ports of 127.0.0.1. */
export async function startReceivers(options: ReceiverOptions): Promise<Receivers> {
  const messages = new Map<string, Tally>();
  const counts = { withoutKey: 0, unidentified: 0, messageIdMismatches: 0, refused: 0 };
  let dispatchesInFlight = 0;
  let firstArrivals = 0;

  /** Counts one arrival; true when it is to be refused (the first arrival of every n-th outbox message). */
  const arrive = (effect: string, event: string, key: string | undefined): boolean => {
    const name = `${effect} ${event}`;
    let tally = messages.get(name);
    const first = tally === undefined;
    if (!tally) {
      tally = { requests: 0, accepted: 0, keys: new Map() };
      messages.set(name, tally);
    }
    tally.requests++;
    if (key === undefined) counts.withoutKey++;
    else tally.keys.set(key, (tally.keys.get(key) ?? 0) + 1);
    if (!first || effect === DIRECT_EFFECT || options.refuseFirstEvery <= 0) return false;
    return ++firstArrivals % options.refuseFirstEvery === 0;
  };

  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const outbound = req.url === OUTBOX_PATH;
    if (outbound) dispatchesInFlight++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const event = req.headers[EVENT_HEADER];
      const key = req.headers['idempotency-key'];
      const effect = req.url === DIRECT_PATH ? DIRECT_EFFECT : outbound ? HTTP_EFFECT : undefined;
      let status = 200;
      if (typeof event !== 'string' || effect === undefined || req.method !== 'POST') {
        counts.unidentified++;
        status = 404;
      } else if (typeof key !== 'string' || key === '') {
        arrive(effect, event, undefined);
        status = 400;
      } else if (arrive(effect, event, key)) {
        counts.refused++;
        status = 503;
      }
      await sleep(options.answerDelayMs);
      if (status === 200) messages.get(`${effect} ${event}`)!.accepted++;
      if (outbound) dispatchesInFlight--;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ received: status === 200 }));
    });
    req.on('error', () => {
      if (outbound) dispatchesInFlight--;
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    // Closing waits this long for connections still open (a killed dispatcher's), not 30 s.
    closeTimeout: 1_000,
    onData(stream, _session, callback) {
      dispatchesInFlight++;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const headers = mailHeaders(Buffer.concat(chunks));
        const subject = /^receipt (\S+)$/.exec(headers.get('subject') ?? '');
        const headerKey = headers.get('idempotency-key');
        const messageId = headers.get('message-id');
        const key = headerKey ?? /^<([^@>]+)@/.exec(messageId ?? '')?.[1];
        let refusal: Error | null = null;
        if (!subject) counts.unidentified++;
        else if (key === undefined) arrive(EMAIL_EFFECT, subject[1]!, undefined);
        else {
          if (messageId !== `<${headerKey}@${MESSAGE_ID_DOMAIN}>`) counts.messageIdMismatches++;
          if (arrive(EMAIL_EFFECT, subject[1]!, key)) {
            counts.refused++;
            refusal = Object.assign(new Error('Try again later'), { responseCode: 451 });
          }
        }
        await sleep(options.answerDelayMs);
        if (subject && key !== undefined && !refusal)
          messages.get(`${EMAIL_EFFECT} ${subject[1]}`)!.accepted++;
        dispatchesInFlight--;
        callback(refusal);
      });
    },
  });
  // A connection reset under it (a dispatcher SIGKILLed mid-mail) is the server's 'error' event:
  // what the test causes, not a failure of the receiver.
  smtp.on('error', () => undefined);
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  return {
    httpUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    smtpPort,
    messages,
    get withoutKey() {
      return counts.withoutKey;
    },
    get unidentified() {
      return counts.unidentified;
    },
    get messageIdMismatches() {
      return counts.messageIdMismatches;
    },
    get refused() {
      return counts.refused;
    },
    get dispatchesInFlight() {
      return dispatchesInFlight;
    },
    tally: (effect, event) => messages.get(`${effect} ${event}`),
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}
