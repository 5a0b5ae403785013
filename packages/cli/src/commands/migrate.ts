/**
 * @module `migrate`: create the receipts table and its indexes unless they exist, and add to an
 * existing table the indexes a newer version has (`--inbox`: the inbox deliveries table too);
 * `--print` shows the DDL.
 */
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { ExitCode } from '../exit-codes';
import { type Context, probe, withAdmin } from '../session';

/** Options of `migrate`. */
export interface MigrateCommandOptions {
  /** The inbox deliveries table too. */
  readonly inbox?: boolean;
  readonly print?: boolean;
  readonly json?: boolean;
}

export async function migrate(context: Context, options: MigrateCommandOptions): Promise<number> {
  const { out, table, inboxTable, target } = context;
  if (options.print) {
    const statements = Schema.statements(target.dialect, { table });
    const inbox = options.inbox
      ? InboxSchema.statements(target.dialect, { table: inboxTable })
      : [];
    if (options.json)
      out.line(
        JSON.stringify(
          {
            dialect: target.dialect,
            table,
            statements,
            ...(options.inbox ? { inbox: { table: inboxTable, statements: inbox } } : {}),
          },
          null,
          2,
        ),
      );
    else out.line(`${[...statements, ...inbox].join(';\n\n')};`);
    return ExitCode.OK;
  }
  const existed = await withAdmin(
    context,
    async (admin, opened) => {
      const before = await probe(context, admin);
      const created = await Schema.createTable(opened.db, { table });
      // On a table that existed: the indexes it lacked (made by an older version).
      const added = before ? created : [];
      if (!options.inbox) return { receipts: before, added, inbox: true };
      const deliveries = new SqlInbox(opened.db, { table: inboxTable });
      const inboxBefore = await deliveries.tableExists();
      await InboxSchema.createTable(opened.db, { table: inboxTable });
      return { receipts: before, added, inbox: inboxBefore };
    },
    { create: true, checkTable: false },
  );
  if (options.json)
    out.line(
      JSON.stringify(
        {
          dialect: target.dialect,
          table,
          created: !existed.receipts,
          indexesAdded: existed.added,
          ...(options.inbox ? { inbox: { table: inboxTable, created: !existed.inbox } } : {}),
        },
        null,
        2,
      ),
    );
  else {
    const said = (name: string, was: boolean) =>
      was
        ? `Table ${name} exists already in ${target.display}, with its indexes.`
        : `Created table ${name} and its indexes in ${target.display}.`;
    out.line(
      existed.added.length
        ? `Table ${table} exists already in ${target.display}; added its ${existed.added.length === 1 ? 'index' : 'indexes'} ${existed.added.join(', ')}.`
        : said(table, existed.receipts),
    );
    if (options.inbox) out.line(said(inboxTable, existed.inbox));
  }
  return ExitCode.OK;
}
