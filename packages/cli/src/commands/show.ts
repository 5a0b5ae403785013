/** @module `show`: one receipt, its stored answer pretty-printed. */
import type { ObservedReceipt } from '@webhook-idempotency/core';
import { formatAge, formatDuration } from '../durations';
import { CliError, ExitCode } from '../exit-codes';
import type { Printer } from '../output';
import { type Context, type EventKey, withAdmin } from '../session';
import { printRecord } from './layout';
import { receiptJson } from './list';

/** Options of `show`. */
export interface ShowCommandOptions {
  readonly json?: boolean;
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** The stored answer as lines: an HTTP answer (status, headers, body) or the handler's JSON value. */
function answerLines(response: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(response);
  } catch {
    return [response];
  }
  const http = value as { status?: unknown; headers?: unknown; body?: unknown; encoding?: unknown };
  if (
    typeof http === 'object' &&
    http !== null &&
    typeof http.status === 'number' &&
    typeof http.body === 'string' &&
    (http.encoding === 'utf8' || http.encoding === 'base64')
  ) {
    const headers = Object.entries((http.headers ?? {}) as Record<string, string | string[]>).map(
      ([name, v]) => `${name}: ${Array.isArray(v) ? v.join(', ') : v}`,
    );
    let body = http.body;
    if (http.encoding === 'base64')
      body = `(${Buffer.from(body, 'base64').length} bytes, base64) ${body}`;
    else {
      try {
        body = pretty(JSON.parse(body));
      } catch {
        // Not JSON: shown as stored.
      }
    }
    return [
      `HTTP ${http.status}`,
      ...headers,
      '',
      ...(body === '' ? ['(empty body)'] : body.split('\n')),
    ];
  }
  return pretty(value).split('\n');
}

function print(out: Printer, receipt: ObservedReceipt): void {
  const field = printRecord(out, receipt);
  field('status', receipt.status);
  field('attempts', String(receipt.attempts));
  field('claimed', `${receipt.claimedAt.toISOString()} (${formatAge(receipt.claimAgeMs)} ago)`);
  if (receipt.finishedAt)
    field(
      'finished',
      `${receipt.finishedAt.toISOString()} (took ${formatDuration(receipt.finishedAt.getTime() - receipt.claimedAt.getTime())})`,
    );
  if (receipt.fingerprint) field('fingerprint', receipt.fingerprint);
  if (receipt.error) field('error', receipt.error);
  if (receipt.response !== null) {
    out.line();
    out.line(out.paint('dim', 'stored answer'));
    for (const line of answerLines(receipt.response)) out.line(line);
  }
}

export async function show(
  context: Context,
  key: EventKey,
  options: ShowCommandOptions,
): Promise<number> {
  const { out } = context;
  const receipt = await withAdmin(context, (admin) => admin.find(key));
  if (!receipt)
    throw new CliError(
      ExitCode.NOT_FOUND,
      `No receipt ${key.provider} ${key.externalId} in ${context.table}.`,
    );
  if (options.json) out.line(pretty({ receipt: receiptJson(receipt) }));
  else print(out, receipt);
  return ExitCode.OK;
}
