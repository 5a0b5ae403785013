/**
 * A real D1 database in workerd (miniflare), reached from the test process: a Worker runs each
 * statement or batch it is sent on its `env.DB` binding, and answers with D1's result or error
 * text. One HTTP round trip per statement or batch (miniflare's own `getD1Database()` proxy
 * makes one per `prepare`, `bind` and `all`, about three times slower under the race cases).
 */
import { Miniflare } from 'miniflare';
import type { D1DatabaseLike, D1PreparedStatementLike, D1ResultLike } from '../../src/d1';

/** The Worker: `{ method: 'all' | 'run' | 'batch', statements: [{ sql, params }] }` in, D1's answer out. */
const BRIDGE = `
export default {
  async fetch(request, env) {
    const { method, statements } = await request.json();
    const prepared = statements.map(({ sql, params }) => env.DB.prepare(sql).bind(...params));
    try {
      const result = method === 'batch' ? await env.DB.batch(prepared) : await prepared[0][method]();
      return Response.json({ result });
    } catch (error) {
      return Response.json({ error: String(error && error.message || error) }, { status: 500 });
    }
  },
};`;

interface Sent {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** A D1 database in a fresh miniflare, and its binding as the test process sees it. */
export interface TestD1 {
  readonly db: D1DatabaseLike;
  close(): Promise<void>;
}

/** Starts workerd with one D1 database (in memory) bound as `DB`. */
export async function startD1(): Promise<TestD1> {
  const mf = new Miniflare({
    modules: true,
    script: BRIDGE,
    d1Databases: { DB: 'test' },
    compatibilityDate: '2026-07-01',
  });
  const url = await mf.ready;
  const send = async (method: string, statements: readonly Sent[]): Promise<unknown> => {
    const response = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ method, statements }),
    });
    const answer = (await response.json()) as { result?: unknown; error?: string };
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.result;
  };
  class Statement implements D1PreparedStatementLike {
    constructor(
      readonly sql: string,
      readonly params: readonly unknown[] = [],
    ) {}
    bind(...values: unknown[]): Statement {
      return new Statement(this.sql, values);
    }
    all(): Promise<D1ResultLike> {
      return send('all', [this]) as Promise<D1ResultLike>;
    }
    run(): Promise<D1ResultLike> {
      return send('run', [this]) as Promise<D1ResultLike>;
    }
  }
  const db: D1DatabaseLike = {
    prepare: (sql) => new Statement(sql),
    batch: (statements) =>
      send(
        'batch',
        statements.map((statement) => statement as Statement),
      ) as Promise<D1ResultLike[]>,
  };
  return { db, close: () => mf.dispose() };
}
