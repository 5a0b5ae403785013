/**
 * @module `send`: one signed sample delivery of a preset, POSTed to a URL, for a dev loop against
 * your own endpoint: signed by the test kit's signer of that preset, with a sample payload of ours
 * (or `--body`'s exact bytes), a new id each time unless `--id` repeats one; `--retry` sends it
 * again as the provider retries it, and says whether the endpoint answered that as a replay.
 * `--list` prints the presets and their sample events.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CliError, ExitCode } from '../exit-codes';
import { type Printer, renderTable } from '../output';
import type { Credentials } from '../send/credentials';
import { SAMPLES as FIRST } from '../send/samples';
import { MORE_SAMPLES } from '../send/samples-more';
import { SECOND_SAMPLES } from '../send/samples-second';
import { type Delivery, WIRED } from '../send/signers';

const SAMPLES = { ...FIRST, ...MORE_SAMPLES, ...SECOND_SAMPLES };

/** Options of `send`: the credentials (`--secret`, `--key-file`, …) and the delivery's. */
export interface SendOptions extends Credentials {
  readonly event?: string;
  /** A file whose exact bytes are the body (Click: a JSON object of the form fields). */
  readonly body?: string;
  readonly id?: string;
  readonly retry?: boolean;
  readonly list?: boolean;
  readonly json?: boolean;
}

/** What the endpoint answered one request. */
interface Answer {
  readonly status: number;
  /** The endpoint said it answered from its stored receipt (`Idempotent-Replayed: true`). */
  readonly replayed: boolean;
  readonly body: string;
}

/** `send --list`: each preset, the flags it signs with, and its sample events (the first the default), a row each. */
export function listPresets(out: Printer, json: boolean): number {
  const presets = Object.entries(WIRED).map(([name, wired]) => ({
    preset: name,
    needs: wired.needs,
    events: Object.keys(SAMPLES[name] ?? {}),
  }));
  if (json) {
    out.line(JSON.stringify({ presets }, null, 2));
    return ExitCode.OK;
  }
  const rows = presets.flatMap(({ preset, needs, events }) =>
    (events.length ? events : ['(--body FILE)']).map((event) => [preset, event, needs]),
  );
  const columns = [{ header: 'preset' }, { header: 'sample event' }, { header: 'signs with' }];
  for (const line of renderTable(out, columns, rows)) out.line(line);
  return ExitCode.OK;
}

/** The payload: `--body`'s bytes, or the sample of `event` made with `id`. */
function payloadOf(preset: string, event: string, id: string, body?: string): object {
  if (body !== undefined) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(body);
    } catch (error) {
      throw new CliError(ExitCode.USAGE, `Cannot read --body ${body}: ${(error as Error).message}`);
    }
    return preset === 'click' ? (JSON.parse(bytes.toString('utf8')) as object) : bytes;
  }
  const sample = SAMPLES[preset]?.[event];
  if (!sample)
    throw new CliError(
      ExitCode.USAGE,
      `No sample ${JSON.stringify(event)} for ${preset}: pass --body FILE, or pick one of ` +
        `${Object.keys(SAMPLES[preset] ?? {}).join(', ') || '(none: --body FILE)'} (send --list).`,
    );
  return sample(id);
}

async function post(delivery: Delivery): Promise<Answer> {
  try {
    const response = await fetch(delivery.url, {
      method: delivery.method,
      headers: delivery.headers,
      ...(delivery.method === 'POST' ? { body: delivery.body } : {}),
    });
    const body = await response.text();
    const replayed = response.headers.get('idempotent-replayed') === 'true';
    return { status: response.status, replayed, body };
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new CliError(
      ExitCode.CONNECTION,
      `Cannot reach ${delivery.url}: ${cause ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

const said = (a: Answer) =>
  `${a.status}${a.replayed ? ', replayed (Idempotent-Replayed: true)' : ''}` +
  (a.body ? ` ${a.body.length > 200 ? `${a.body.slice(0, 200)}…` : a.body}` : '');

export async function send(
  out: Printer,
  preset: string,
  url: string,
  options: SendOptions,
): Promise<number> {
  const wired = WIRED[preset];
  if (!wired)
    throw new CliError(
      ExitCode.USAGE,
      `send has no signer for ${JSON.stringify(preset)}: see send --list.`,
    );
  if (!/^https?:\/\//.test(url)) throw new CliError(ExitCode.USAGE, `Not an http(s) URL: ${url}`);
  const event = options.event ?? Object.keys(SAMPLES[preset] ?? {})[0] ?? 'event';
  const id = options.id ?? `${preset === 'stripe' ? 'evt_' : ''}${randomBytes(8).toString('hex')}`;
  const payload = payloadOf(preset, event, id, options.body);
  const delivery = wired.sign({ preset, credentials: options, event, id, url, payload });
  const answers = [await post(delivery)];
  if (options.retry) answers.push(await post(delivery.retry()));
  if (options.json) out.line(JSON.stringify({ preset, event, id, url, answers }, null, 2));
  else {
    out.line(`Sent ${preset} ${event} (${id}) to ${url}: ${said(answers[0]!)}`);
    if (answers[1]) out.line(`Sent it again, as ${preset} retries it: ${said(answers[1])}`);
  }
  const failed = answers.find((a) => a.status < 200 || a.status > 299);
  if (failed) throw new CliError(ExitCode.ERROR, `${url} answered ${failed.status}.`);
  return ExitCode.OK;
}
