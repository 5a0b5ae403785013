/** @module `purge`: delete finished receipts past a retention, in chunks, with progress. */
import { DEFAULT_PURGE_CHUNK_SIZE, renamedOption } from '@webhook-idempotency/core/adapter';
import { CliError, ExitCode } from '../exit-codes';
import { type Context, withAdmin } from '../session';

/** Options of `purge`. */
export interface PurgeCommandOptions {
  readonly retentionDays: number;
  readonly provider?: string;
  /** Rows per DELETE; defaults to 1000. */
  readonly chunkSize?: number;
  /** `--batch-size`, the flag's deprecated name: as `chunkSize`. */
  readonly batchSize?: number;
  readonly json?: boolean;
}

/** `--chunk-size`, or its deprecated name `--batch-size`; both with different values is a usage error. */
function chunkSizeOf(options: PurgeCommandOptions): number {
  try {
    return renamedOption(options, 'chunkSize', 'batchSize') ?? DEFAULT_PURGE_CHUNK_SIZE;
  } catch {
    throw new CliError(
      ExitCode.USAGE,
      `--chunk-size ${options.chunkSize} and its deprecated name --batch-size ${options.batchSize} disagree: give only --chunk-size`,
    );
  }
}

const DAY_MS = 86_400_000;
const BAR = 30;

export async function purge(context: Context, options: PurgeCommandOptions): Promise<number> {
  const { out, table } = context;
  const olderThanMs = options.retentionDays * DAY_MS;
  const chunkSize = chunkSizeOf(options);
  const scope = {
    olderThanMs,
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
  };
  const what =
    (options.provider === undefined
      ? 'finished receipts'
      : `finished ${options.provider} receipts`) +
    (options.retentionDays === 0
      ? ''
      : ` older than ${options.retentionDays} day${options.retentionDays === 1 ? '' : 's'}`);
  const deleted = await withAdmin(context, async (admin) => {
    const total = await admin.countPurgeable(scope);
    if (!options.json) out.line(`Purging ${total} ${what} from ${table}.`);
    const tty = out.stream.isTTY === true && !options.json;
    let drawn = false;
    const count = await admin.purge({
      ...scope,
      chunkSize,
      onChunk: (done) => {
        if (options.json) return;
        drawn = true;
        // Rows may finish while the purge runs: never show more than 100 %.
        const of = Math.max(total, done);
        if (tty) {
          const filled = of === 0 ? BAR : Math.round((done / of) * BAR);
          out.stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${done}/${of}`);
        } else out.line(`deleted ${done} of ${of}`);
      },
    });
    if (tty && drawn) out.stream.write('\n');
    return count;
  });
  if (options.json) out.line(JSON.stringify({ table, deleted, ...scope }, null, 2));
  else out.line(`Deleted ${deleted} receipt${deleted === 1 ? '' : 's'}.`);
  return ExitCode.OK;
}
