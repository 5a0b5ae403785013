/** @module `migrate`: create the receipts table and its indexes unless they exist; `--print` shows the DDL. */
import { Schema } from '@webhook-idempotency/sql';
import { ExitCode } from '../exit-codes';
import { type Context, probe, withAdmin } from '../session';

/** Options of `migrate`. */
export interface MigrateCommandOptions {
  readonly print?: boolean;
  readonly json?: boolean;
}

export async function migrate(context: Context, options: MigrateCommandOptions): Promise<number> {
  const { out, table, target } = context;
  if (options.print) {
    const statements = Schema.statements(target.dialect, { table });
    if (options.json)
      out.line(JSON.stringify({ dialect: target.dialect, table, statements }, null, 2));
    else out.line(`${statements.join(';\n\n')};`);
    return ExitCode.OK;
  }
  const existed = await withAdmin(
    context,
    async (admin, opened) => {
      const before = await probe(context, admin);
      await Schema.createTable(opened.db, { table });
      return before;
    },
    { create: true, checkTable: false },
  );
  if (options.json)
    out.line(JSON.stringify({ dialect: target.dialect, table, created: !existed }, null, 2));
  else
    out.line(
      existed
        ? `Table ${table} exists already in ${target.display}; its indexes are in place.`
        : `Created table ${table} and its indexes in ${target.display}.`,
    );
  return ExitCode.OK;
}
