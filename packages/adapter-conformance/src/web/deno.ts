/**
 * @module The Web suite inside Deno, on `Deno.serve`, over `node:sqlite` (what Deno's own docs use
 * for SQLite) and PostgreSQL through `pg`. Not loaded by jest: tests/runtimes/deno.test.ts bundles
 * it with the packed tarballs as its imports and jest's `expect` package, and runs it with
 * `deno test` in the project folder (where the SQLite file goes). `WI_RUNTIME_PG_URL` names the
 * PostgreSQL database.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { registerWebSuite } from './register';
import { pgStoreKind, sqliteStoreKind } from './stores';

/** The part of Deno's global namespace the suite uses (the workspace has no Deno types). */
interface DenoApi {
  test(definition: {
    name: string;
    fn: () => Promise<void>;
    sanitizeOps: boolean;
    sanitizeResources: boolean;
  }): void;
  serve(
    options: { hostname: string; port: number; onListen(): void },
    handler: (request: Request) => Promise<Response>,
  ): { readonly addr: { readonly port: number }; shutdown(): Promise<void> };
  env: { get(name: string): string | undefined };
}

const { Deno } = globalThis as unknown as { Deno: DenoApi };

registerWebSuite({
  // The servers and the pg pool outlive a test by design (closed after it, kept for the run):
  // Deno's leak sanitizers would report them.
  test: (name, fn) => Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false }),
  async serve(fetch) {
    const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, (request) =>
      fetch(request),
    );
    return { port: server.addr.port, close: () => server.shutdown() };
  },
  stores: [
    sqliteStoreKind(
      'node:sqlite',
      join(process.cwd(), 'web-deno.db'),
      (file) => new DatabaseSync(file, { timeout: 5_000 }),
    ),
    pgStoreKind(Deno.env.get('WI_RUNTIME_PG_URL')),
  ],
});
