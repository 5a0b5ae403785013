/**
 * @module `migrate`: create the receipts table and its indexes unless they exist, and add to an
 * existing table the indexes a newer version has and the ignored-event counts table beside it
 * (`--inbox`: the inbox deliveries table too; `--outbox`: the outbox messages table, an
 * inbox-shaped table of its own); `--print` shows the DDL.
 */
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { ExitCode } from '../exit-codes';
import { type Context, probe, withAdmin } from '../session';

const HOUR = 3_600_000;

/** Options of `migrate`. */
export interface MigrateCommandOptions {
  /** The inbox deliveries table too. */
  readonly inbox?: boolean;
  /** The outbox messages table too. */
  readonly outbox?: boolean;
  readonly print?: boolean;
  readonly json?: boolean;
}

export async function migrate(context: Context, options: MigrateCommandOptions): Promise<number> {
  if (options.print) printDdl(context, options);
  else report(context, options, await createTables(context, options));
  return ExitCode.OK;
}

/** The inbox-shaped tables `migrate` creates with `--inbox` and `--outbox`, as asked. */
function queueTables(context: Context, options: MigrateCommandOptions) {
  return [
    ...(options.inbox ? [{ option: 'inbox', table: context.inboxTable }] : []),
    ...(options.outbox ? [{ option: 'outbox', table: context.outboxTable }] : []),
  ] as const;
}

/** `--print`: the DDL, as SQL or as `--json`; no connection. */
function printDdl(context: Context, options: MigrateCommandOptions) {
  const { out, table, target } = context;
  const statements = Schema.statements(target.dialect, { table });
  // The outbox's table has the inbox's shape: the same DDL on its own table.
  const queues = queueTables(context, options).map(({ option, table }) => ({
    option,
    table,
    statements: InboxSchema.statements(target.dialect, { table }),
  }));
  if (options.json)
    out.line(
      JSON.stringify(
        {
          dialect: target.dialect,
          table,
          statements,
          ...Object.fromEntries(
            queues.map(({ option, table, statements }) => [option, { table, statements }]),
          ),
        },
        null,
        2,
      ),
    );
  else out.line(`${[...statements, ...queues.flatMap((q) => q.statements)].join(';\n\n')};`);
}

/** What the tables were before `migrate` ran, and what it added to an existing one. */
interface Existed {
  /** The receipts table existed. */
  readonly receipts: boolean;
  /** Indexes added to an existing receipts table. */
  readonly added: readonly string[];
  /** The ignored-event counts table, when it was added beside an existing receipts table. */
  readonly ignored: string | null;
  /** Whether each table of `--inbox` and `--outbox` existed, by option. */
  readonly queues: Readonly<Record<string, boolean>>;
}

/** Creates what is missing: the receipts table, its indexes, its counts table, the inbox's, the outbox's. */
function createTables(context: Context, options: MigrateCommandOptions): Promise<Existed> {
  const { table } = context;
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
      const queues: Record<string, boolean> = {};
      for (const { option, table } of queueTables(context, options)) {
        queues[option] = await new SqlInbox(opened.db, { table }).tableExists();
        await InboxSchema.createTable(opened.db, { table });
      }
      return { receipts: before, added, ignored, queues };
    },
    { create: true, checkTable: false },
  );
}

/** What `migrate` did, as `--json` or as sentences. */
function report(context: Context, options: MigrateCommandOptions, existed: Existed): void {
  const { out, table, target } = context;
  const queues = queueTables(context, options);
  if (options.json) {
    out.line(
      JSON.stringify(
        {
          dialect: target.dialect,
          table,
          created: !existed.receipts,
          indexesAdded: existed.added,
          tablesAdded: existed.ignored ? [existed.ignored] : [],
          ...Object.fromEntries(
            queues.map(({ option, table }) => [
              option,
              { table, created: !existed.queues[option] },
            ]),
          ),
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
  for (const { option, table } of queues) out.line(said(table, existed.queues[option] === true));
}
