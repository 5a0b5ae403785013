// The workspace type-checks against @types/node 20, which predates `node:sqlite` (Node ≥ 22.5; the store needs 22.16).
// The part the tests and snippets use, as Node 22 declares it; on Node 22+ types this file is not needed.
declare module 'node:sqlite' {
  type SQLInputValue = null | number | bigint | string | Uint8Array;
  export class StatementSync {
    all(...parameters: SQLInputValue[]): Record<string, unknown>[];
    run(...parameters: SQLInputValue[]): {
      changes: number | bigint;
      lastInsertRowid: number | bigint;
    };
    columns(): unknown[];
  }
  export class DatabaseSync {
    constructor(path: string, options?: { timeout?: number });
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
    close(): void;
    readonly isTransaction: boolean;
  }
}
