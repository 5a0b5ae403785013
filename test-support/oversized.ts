/**
 * A sender of request bodies over a server's limit, as simple webhook senders send them: the
 * request written whole (its `Content-Length` announced, or chunked), and the answer read once
 * the body is written, on a connection of its own (`Connection: close`) or on one kept alive and
 * reused. A server that closes the connection under a body it did not read makes such a sender
 * fail its write (`EPIPE`, `ECONNRESET`) or lose the answer: what the tests of the Web adapters
 * ask is whether it reads the server's `413`, every time.
 */
import { connect, type Socket } from 'node:net';

/** How one attempt sends its body. */
export interface SenderKind {
  /** `'announced'`: `Content-Length` set; `'chunked'`: `Transfer-Encoding: chunked`. */
  readonly length: 'announced' | 'chunked';
  /** `'closing'`: `Connection: close`, a connection per request; `'kept-alive'`: one connection reused while the server keeps it. */
  readonly connection: 'closing' | 'kept-alive';
}

/** Every {@link SenderKind}, in the order each round of attempts takes them. */
export const SENDER_KINDS: readonly SenderKind[] = [
  { length: 'announced', connection: 'closing' },
  { length: 'announced', connection: 'kept-alive' },
  { length: 'chunked', connection: 'closing' },
  { length: 'chunked', connection: 'kept-alive' },
];

/** What {@link sendOversized} sends. */
export interface OversizedRequest {
  /** The server's base URL (`http://127.0.0.1:8787`). */
  readonly url: string | URL;
  readonly path: string;
  /** Body size in bytes. */
  readonly bytes: number;
  /** Rounds: each sends one request of every {@link SenderKind}. */
  readonly rounds: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * How long one attempt may take before the sender gives up on it (a server that neither reads
 * the body nor answers leaves a sender that writes first stuck there).
 */
const ATTEMPT_MS = 5_000;
const NO_ANSWER = 'no answer';

/**
 * Sends `rounds` requests of each {@link SenderKind}; resolves with how each ended,
 * `"<length>, <connection>: <outcome>"`, the outcome being the status when the answer was read to
 * its end, or the error the sender got instead (`EPIPE`, `ECONNRESET`, `closed`), after the status
 * when the answer broke off (`413, then ECONNRESET`), or `no answer` after 5 s. After an attempt
 * without an answer, the ones left are not sent (`not sent`): a stuck server would take them all
 * that long. Never rejects.
 */
export async function sendOversized(options: OversizedRequest): Promise<string[]> {
  const { url, path, bytes, rounds, headers = {} } = options;
  const { hostname, port } = new URL(url);
  const body = Buffer.alloc(bytes, 0x61);
  const open = () => connect({ host: hostname, port: Number(port) });
  let kept: Connection | undefined;
  let stuck = false;
  const outcomes: string[] = [];
  try {
    for (let round = 0; round < rounds; round++)
      for (const kind of SENDER_KINDS) {
        const name = `${kind.length}, ${kind.connection}`;
        if (stuck) {
          outcomes.push(`${name}: not sent`);
          continue;
        }
        const reuse = kind.connection === 'kept-alive' && kept?.open();
        const connection = reuse && kept ? kept : new Connection(open());
        const head = requestHead(hostname, path, kind, headers, body.length);
        const outcome = await connection.exchange(head, framed(body, kind), ATTEMPT_MS);
        stuck = outcome === NO_ANSWER;
        if (kind.connection === 'kept-alive' && !stuck) kept = connection;
        else connection.close();
        outcomes.push(`${name}: ${outcome}`);
      }
  } finally {
    kept?.close();
  }
  return outcomes;
}

function requestHead(
  host: string,
  path: string,
  kind: SenderKind,
  extra: Readonly<Record<string, string>>,
  bytes: number,
): string {
  const headers: Record<string, string> = {
    host,
    'content-type': 'application/json',
    connection: kind.connection === 'closing' ? 'close' : 'keep-alive',
    ...(kind.length === 'announced'
      ? { 'content-length': String(bytes) }
      : { 'transfer-encoding': 'chunked' }),
    ...extra,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/** The body as it goes on the wire: as it is, or as one chunk and the last chunk. */
const framed = (body: Buffer, kind: SenderKind): Buffer =>
  kind.length === 'announced'
    ? body
    : Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);

/** What a sender writes at a time: 64 KiB. */
const PIECE_BYTES = 64 * 1024;

function pieces(body: Buffer): Buffer[] {
  const all: Buffer[] = [];
  for (let at = 0; at < body.length; at += PIECE_BYTES)
    all.push(body.subarray(at, at + PIECE_BYTES));
  return all;
}

/** One connection: a request written whole, then its answer read. */
class Connection {
  #error: string | undefined;
  #ended = false;
  #received = Buffer.alloc(0);
  #wake: (() => void) | undefined;

  constructor(private readonly socket: Socket) {
    socket.pause(); // nothing is read before the request is written, as a simple sender does
    socket.on('data', (data: Buffer) => {
      this.#received = Buffer.concat([this.#received, data]);
      this.#wake?.();
    });
    socket.on('end', () => {
      this.#ended = true;
      this.#wake?.();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.#error ??= error.code ?? error.message;
      this.#wake?.();
    });
    socket.on('close', () => {
      this.#ended = true;
      this.#wake?.();
    });
  }

  /** Still usable for another request: no error, no end from the server. */
  open(): boolean {
    return !this.#error && !this.#ended && !this.socket.destroyed;
  }

  close(): void {
    this.socket.destroy();
  }

  /**
   * Writes `parts` one after the other, each once the one before it was handed to the system, a
   * turn of the event loop apart (as a sender on a real network writes, not in one go into the
   * loopback's buffers); resolves with the write error, `undefined` when all were written.
   */
  async #write(parts: readonly Buffer[]): Promise<string | undefined> {
    for (const part of parts) {
      const error = await new Promise<string | undefined>((resolve) =>
        this.socket.write(part, (failed?: NodeJS.ErrnoException | null) =>
          resolve(failed ? (failed.code ?? failed.message) : undefined),
        ),
      );
      if (error || this.#error) return error ?? this.#error;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return undefined;
  }

  /** Writes `head` and `body`, then reads one answer; resolves with its outcome, {@link NO_ANSWER} past `ms`. */
  async exchange(head: string, body: Buffer, ms: number): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(NO_ANSWER), ms);
    });
    try {
      return await Promise.race([this.#exchange(head, body), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #exchange(head: string, body: Buffer): Promise<string> {
    const written = await this.#write([Buffer.from(head), ...pieces(body)]);
    if (written || this.#error) {
      this.#error ??= written ?? 'closed';
      return this.#error;
    }
    this.socket.resume();
    for (;;) {
      const answer = parseAnswer(this.#received);
      if (answer.complete) {
        this.#received = this.#received.subarray(answer.length);
        if (answer.closes) this.#ended = true;
        return String(answer.status);
      }
      if (this.#error || this.#ended) {
        const cause = this.#error ?? 'closed';
        return answer.status === undefined ? cause : `${answer.status}, then ${cause}`;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}

/** What {@link parseAnswer} found in the bytes received so far. */
interface ParsedAnswer {
  readonly status?: number;
  readonly complete: boolean;
  /** Bytes of the complete answer. */
  readonly length: number;
  /** The server said `Connection: close`. */
  readonly closes: boolean;
}

/** Parses an HTTP/1.1 answer whose body is framed by `Content-Length` or chunked. */
function parseAnswer(bytes: Buffer): ParsedAnswer {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { complete: false, length: 0, closes: false };
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const header = (name: string) =>
    lines
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim()
      .toLowerCase();
  const closes = header('connection') === 'close';
  const start = end + 4;
  const incomplete = { status, complete: false, length: 0, closes };
  if (header('transfer-encoding') === 'chunked') {
    let at = start;
    for (;;) {
      const line = bytes.indexOf('\r\n', at);
      if (line < 0) return incomplete;
      const size = Number.parseInt(bytes.subarray(at, line).toString('latin1'), 16);
      const next = line + 2 + size + 2;
      if (next > bytes.length) return incomplete;
      at = next;
      if (size === 0) return { status, complete: true, length: at, closes };
    }
  }
  const length = start + Number(header('content-length') ?? 0);
  return length <= bytes.length ? { status, complete: true, length, closes } : incomplete;
}

/**
 * `outcomes` as they must be when every sender read `status`: each kind of sender, with that
 * status. `expect(outcomes).toEqual(allAnswered(outcomes, 413))` names the attempts that did not.
 */
export const allAnswered = (outcomes: readonly string[], status: number): string[] =>
  outcomes.map((outcome) => outcome.replace(/: .*$/, `: ${status}`));
