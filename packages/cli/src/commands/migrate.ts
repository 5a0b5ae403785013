/**
 * @module `migrate`: create the receipts table and its indexes unless they exist, and add to an
 * existing table the indexes a newer version has and the ignored-event counts table beside it
 * (`--inbox`: the inbox deliveries table too); `--print` shows the DDL.
 */
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { ExitCode } from '../exit-codes';
import { type Context, probe, withAdmin } from '../session';

const HOUR = 3_600_000;

/** Options of `migrate`. */
export interface MigrateCommandOptions {
  /** The inbox deliveries table too. */
  readonly inbox?: boolean;
  readonly print?: boolean;
  readonly json?: boolean;
}

export async function migrate(context: Context, options: MigrateCommandOptions): Promise<number> {
  if (options.print) printDdl(context, options);
  else report(context, options, await createTables(context, options));
  return ExitCode.OK;
}

/** `--print`: the DDL, as SQL or as `--json`; no connection. */
function printDdl({ out, table, inboxTable, target }: Context, options: MigrateCommandOptions) {
  const statements = Schema.statements(target.dialect, { table });
  const inbox = options.inbox ? InboxSchema.statements(target.dialect, { table: inboxTable }) : [];
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
}

/** What the tables were before `migrate` ran, and what it added to an existing one. */
interface Existed {
  /** The receipts table existed. */
  readonly receipts: boolean;
  /** Indexes added to an existing receipts table. */
  readonly added: readonly string[];
  /** The ignored-event counts table, when it was added beside an existing receipts table. */
  readonly ignored: string | null;
  /** The inbox table existed (`true` without `--inbox`). */
  readonly inbox: boolean;
}

/** Creates what is missing: the receipts table, its indexes, its counts table, the inbox's. */
function createTables(context: Context, options: MigrateCommandOptions): Promise<Existed> {
  const { table, inboxTable } = context;
  return withAdmin(
    context,
    async (admin, opened) => {
      const before = await probe(context, admin);
      const counted = (await admin.ignored({ sinceMs: HOUR })).counted;
      const created = await Schema.createTable(opened.db, { table });
      // On a table that existed: the indexes it lacked (made by an older version), and the
      // ignored-event counts table when that version had none.
      const added = before ? created : [];
      const ignored = before && !counted ? (await admin.ignored({ sinceMs: HOUR })).table : null;
      if (!options.inbox) return { receipts: before, added, ignored, inbox: true };
      const deliveries = new SqlInbox(opened.db, { table: inboxTable });
      const inboxBefore = await deliveries.tableExists();
      await InboxSchema.createTable(opened.db, { table: inboxTable });
      return { receipts: before, added, ignored, inbox: inboxBefore };
    },
    { create: true, checkTable: false },
  );
}

/** What `migrate` did, as `--json` or as sentences. */
function report(context: Context, options: MigrateCommandOptions, existed: Existed): void {
  const { out, table, inboxTable, target } = context;
  if (options.json) {
    out.line(
      JSON.stringify(
        {
          dialect: target.dialect,
          table,
          created: !existed.receipts,
          indexesAdded: existed.added,
          tablesAdded: existed.ignored ? [existed.ignored] : [],
          ...(options.inbox ? { inbox: { table: inboxTable, created: !existed.inbox } } : {}),
        },
        null,
        2,
      ),
    );
    return;
  }
  const said = (name: string, was: boolean) =>
    was
      ? `Table ${name} exists already in ${target.display}, with its indexes.`
      : `Created table ${name} and its indexes in ${target.display}.`;
  out.line(
    existed.added.length
      ? `Table ${table} exists already in ${target.display}; added its ${existed.added.length === 1 ? 'index' : 'indexes'} ${existed.added.join(', ')}.`
      : said(table, existed.receipts),
  );
  if (existed.ignored)
    out.line(`Added table ${existed.ignored} (the ignored events' counts) beside ${table}.`);
  if (options.inbox) out.line(said(inboxTable, existed.inbox));
}
