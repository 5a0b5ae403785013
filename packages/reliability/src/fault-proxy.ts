/** @module FaultProxy: a TCP proxy (node:net) between an application and its database that adds latency, cuts connections at chosen packets and refuses new ones on command. */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Lane } from './fault-lane';

/** Decides whether a client→server chunk is the one to cut at (it sees the raw bytes, e.g. a query's SQL text). */
export type PacketPredicate = (bytes: Buffer) => boolean;

/**
 * When a matching packet cuts its connection:
 * - `'before'`: the packet never reaches the server; both sides of that connection are closed at once.
 * - `'after'`: the packet reaches the server, which executes it; the connection is closed when the
 *   server's first reply arrives, and the reply is never delivered (the client cannot know the outcome).
 */
export type CutTiming = 'before' | 'after';

/** An armed cut: fires once, on the first packet of any connection that matches its predicate. */
export interface Cut {
  /** Resolves with the matching packet's printable text when the cut fires. */
  readonly fired: Promise<string>;
  /** True once the cut has fired. */
  readonly hasFired: boolean;
  /** Removes the cut if it has not fired yet. */
  disarm(): void;
}

/** Counters of what the proxy did, for reports and assertions. */
export interface FaultProxyStats {
  /** Connections accepted and piped to the target. */
  accepted: number;
  /** Connections closed by a cut or by {@link FaultProxy.dropAll}. */
  cut: number;
}

interface ArmedCut {
  readonly predicate: PacketPredicate;
  readonly timing: CutTiming;
  fire(text: string): void;
  done: boolean;
}

/** The bytes of a packet as text a person (or a predicate) can read: control bytes become dots. */
export function printable(bytes: Buffer): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes are what this replaces.
  return bytes.toString('latin1').replace(/[\x00-\x1f\x7f-\xff]/g, '.');
}

/** MySQL commands of the binary protocol (the byte after the 4-byte packet header). */
const COM_STMT_PREPARE = 0x16;
const COM_STMT_EXECUTE = 0x17;

/**
 * The command byte of a MySQL client packet, or undefined. A prepared statement's SQL text travels
 * in COM_STMT_PREPARE and the server runs it at COM_STMT_EXECUTE (no text), so a cut that matched
 * the text is moved to the execute. PostgreSQL's extended protocol sends Parse (the text) with
 * Bind and Execute in one chunk, so it needs nothing of the kind.
 */
function mysqlCommand(chunk: Buffer): number | undefined {
  return chunk.length > 4 && chunk.readUIntLE(0, 3) === chunk.length - 4 ? chunk[4] : undefined;
}

/** One proxied connection: the application's socket and the proxy's socket to the database. */
class Pair {
  private readonly toServer: Lane;
  private readonly toClient: Lane;
  /** Set when a packet armed with timing `'after'` reached the server: its reply closes the pair. */
  private cutOnReply = false;
  /** A cut whose SQL was a MySQL prepared statement's text: it applies to that statement's execute. */
  private heldCut: ArmedCut | undefined;
  private ended = false;

  constructor(
    private readonly proxy: FaultProxy,
    private readonly client: Socket,
    private readonly server: Socket,
    latencyMs: () => number,
    private readonly onEnd: (pair: Pair) => void,
  ) {
    this.toServer = new Lane(server, latencyMs);
    this.toClient = new Lane(client, latencyMs);
    client.setNoDelay(true);
    server.setNoDelay(true);
    client.on('data', (chunk: Buffer) => this.fromClient(chunk));
    server.on('data', (chunk: Buffer) => this.fromServer(chunk));
    // Either side closing or failing closes both; errors are expected here and never thrown.
    for (const socket of [client, server]) {
      socket.on('error', () => this.end());
      socket.on('close', () => this.end());
    }
  }

  /** Closes both sides now. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.toServer.close();
    this.toClient.close();
    this.client.destroy();
    this.server.destroy();
    this.onEnd(this);
  }

  private fromClient(chunk: Buffer): void {
    let cut: ArmedCut | undefined;
    if (this.heldCut && mysqlCommand(chunk) === COM_STMT_EXECUTE) {
      cut = this.heldCut;
      this.heldCut = undefined;
    } else {
      cut = this.proxy.takeCut(chunk);
      if (cut && mysqlCommand(chunk) === COM_STMT_PREPARE) {
        // The SQL text is in the prepare; the statement runs at the execute that follows it.
        this.heldCut = cut;
        cut = undefined;
      }
    }
    if (cut?.timing === 'before') {
      this.proxy.stats.cut++;
      this.end();
      return;
    }
    this.toServer.push(chunk, cut ? () => (this.cutOnReply = true) : undefined);
  }

  private fromServer(chunk: Buffer): void {
    if (this.cutOnReply) {
      this.proxy.stats.cut++;
      this.end();
      return;
    }
    this.toClient.push(chunk);
  }
}

/**
 * A TCP proxy of our own between the application and a database server, to break connections at
 * chosen moments. Point the application's pool at {@link FaultProxy.port}; then:
 *
 * - `latencyMs = n` delays every chunk in both directions by `n` ms (order kept);
 * - `cutWhen(predicate, timing)` cuts the connection that carries the next matching
 *   client→server packet (a query's SQL text is in its bytes for both the PostgreSQL and MySQL
 *   protocols), before or after the server sees it;
 * - `dropAll()` closes every open connection;
 * - `refuse()` stops listening (new connections get `ECONNREFUSED`) until `accept()`.
 *
 * @example
 * const proxy = await FaultProxy.start({ host: '127.0.0.1', port: 5432 });
 * const pool = new pg.Pool({ host: '127.0.0.1', port: proxy.port, ... });
 * const cut = proxy.cutWhen((bytes) => bytes.includes('COMMIT'), 'after');
 * // ... send a request; await cut.fired;
 * await proxy.close();
 */
export class FaultProxy {
  /** Delay, in milliseconds, added to every chunk in each direction. */
  latencyMs = 0;
  /** What the proxy did so far. */
  readonly stats: FaultProxyStats = { accepted: 0, cut: 0 };
  private server: Server | undefined;
  private readonly pairs = new Set<Pair>();
  private cuts: ArmedCut[] = [];
  private closed = false;

  private constructor(
    private readonly target: { readonly host: string; readonly port: number },
    /** The loopback port the proxy listens on. */
    readonly port: number,
  ) {}

  /** Starts a proxy to `target` on a free loopback port (or on `port`). */
  static async start(target: { host: string; port: number }, port = 0): Promise<FaultProxy> {
    const server = createServer();
    await listen(server, port);
    const proxy = new FaultProxy(target, (server.address() as AddressInfo).port);
    proxy.adopt(server);
    return proxy;
  }

  /** How many proxied connections are open now. */
  get openConnections(): number {
    return this.pairs.size;
  }

  /** True while new connections are refused. */
  get refusing(): boolean {
    return this.server === undefined;
  }

  /** `url` (a database URL) with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Arms a one-shot cut on the next client→server packet matching `predicate`. */
  cutWhen(predicate: PacketPredicate, timing: CutTiming = 'before'): Cut {
    let fire!: (text: string) => void;
    const fired = new Promise<string>((resolve) => (fire = resolve));
    const armed: ArmedCut = {
      predicate,
      timing,
      done: false,
      fire: (text) => {
        armed.done = true;
        fire(text);
      },
    };
    this.cuts.push(armed);
    return {
      fired,
      get hasFired() {
        return armed.done;
      },
      disarm: () => {
        this.cuts = this.cuts.filter((cut) => cut !== armed);
      },
    };
  }

  /** Closes every open connection (both sides) now. */
  dropAll(): void {
    for (const pair of [...this.pairs]) {
      this.stats.cut++;
      pair.end();
    }
  }

  /** Stops listening: new connections get `ECONNREFUSED` until {@link FaultProxy.accept}. Open connections stay. */
  async refuse(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // close() calls back only once its connections end; those are ours to keep, so do not wait.
      setImmediate(resolve);
    });
  }

  /** Listens again on the same port after {@link FaultProxy.refuse}. */
  async accept(): Promise<void> {
    if (this.server || this.closed) return;
    const server = createServer();
    await listen(server, this.port);
    this.adopt(server);
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.cuts = [];
    await this.refuse();
    this.dropAll();
  }

  /** @internal The first armed cut matching `chunk`, removed from the armed list and fired (called by the connections). */
  takeCut(chunk: Buffer): ArmedCut | undefined {
    const index = this.cuts.findIndex((cut) => cut.predicate(chunk));
    if (index < 0) return undefined;
    const [cut] = this.cuts.splice(index, 1);
    cut!.fire(printable(chunk));
    return cut;
  }

  private adopt(server: Server): void {
    this.server = server;
    server.on('connection', (client) => this.open(client));
  }

  private open(client: Socket): void {
    if (this.closed) {
      client.destroy();
      return;
    }
    this.stats.accepted++;
    // Bytes the client sends before the upstream connection is up are buffered by the socket.
    const server = connect({ host: this.target.host, port: this.target.port });
    this.pairs.add(
      new Pair(
        this,
        client,
        server,
        () => this.latencyMs,
        (ended) => this.pairs.delete(ended),
      ),
    );
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
