/**
 * @module The Web suite inside Bun, on `Bun.serve`, over `bun:sqlite` and PostgreSQL through `pg`.
 * Not loaded by jest: tests/runtimes/bun.test.ts bundles it with the packed tarballs as its
 * imports and `expect` from `bun:test`, and runs it with `bun test` in the project folder (where
 * the SQLite file goes). `WI_RUNTIME_PG_URL` names the PostgreSQL database.
 */
import { serve } from 'bun';
import { Database } from 'bun:sqlite';
import { test } from 'bun:test';
import { join } from 'node:path';
import { registerWebSuite } from './register';
import { pgStoreKind, sqliteStoreKind } from './stores';

registerWebSuite({
  test,
  async serve(fetch) {
    // What the handler throws is answered by the server's `error` callback, as a Bun app in
    // production answers it (without one, `bun test` reports the error against the test).
    const server = serve({
      hostname: '127.0.0.1',
      port: 0,
      development: false,
      fetch: (request) => fetch(request),
      error: () => new Response('Internal Server Error', { status: 500 }),
    });
    return { port: server.port, close: () => server.stop(true) };
  },
  stores: [
    sqliteStoreKind('bun:sqlite', join(process.cwd(), 'web-bun.db'), (file) => new Database(file)),
    pgStoreKind(process.env.WI_RUNTIME_PG_URL),
  ],
});
