// The workspace type-checks against @types/node, not Bun's types: the part of Bun's built-in
// modules that the suites run inside Bun use (adapter-conformance/src/web/bun.ts, the bun:sqlite
// store suite), as Bun 1.4 declares it.
declare module 'bun:sqlite' {
  type SQLQueryBinding = null | number | bigint | string | boolean | Uint8Array;
  export class Statement {
    all(...parameters: SQLQueryBinding[]): Record<string, unknown>[];
    get(...parameters: SQLQueryBinding[]): Record<string, unknown> | null;
    run(...parameters: SQLQueryBinding[]): { changes: number; lastInsertRowid: number | bigint };
    readonly columnNames: string[];
  }
  export class Database {
    constructor(filename?: string, options?: { create?: boolean; readwrite?: boolean });
    exec(sql: string): { changes: number; lastInsertRowid: number | bigint };
    prepare(sql: string): Statement;
    query(sql: string): Statement;
    close(): void;
    readonly inTransaction: boolean;
  }
}

declare module 'bun' {
  export interface Server {
    readonly port: number;
    stop(closeActiveConnections?: boolean): Promise<void>;
  }
  export function serve(options: {
    hostname?: string;
    port?: number;
    development?: boolean;
    fetch(request: Request, server: Server): Response | Promise<Response>;
    error?(error: Error): Response | Promise<Response>;
  }): Server;
}

declare module 'bun:test' {
  export function test(name: string, run: () => Promise<void>): void;
}
