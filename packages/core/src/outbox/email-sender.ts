/**
 * @module The email sender: one `sendMail` per attempt through a transport of your own
 * (nodemailer's, by its shape: no dependency on nodemailer), every attempt with the same
 * `Message-ID` and an `Idempotency-Key` header made of the effect key, and the SMTP server's
 * answer sorted into retry and refused for good.
 */
import { ConfigError } from '../errors';
import { invalid } from './outbox';
import { type OutboxSender, PermanentSendFailure, type SendInput } from './types';

/** What the email sender sends through: nodemailer's `Transporter` has this shape. */
export interface MailTransport {
  /** Sends one message; resolves once the server accepted it, rejects otherwise. */
  sendMail(mail: Record<string, unknown>): Promise<unknown>;
}

/** The payload the email sender takes: one message (nodemailer's fields of the same names). */
export interface EmailMessage {
  /** The sender's address (`'Shop <orders@shop.example>'`); often set once in the sender's `defaults`. */
  readonly from?: string;
  /** One recipient or several. Required. */
  readonly to: string | readonly string[];
  /** Copied recipients. */
  readonly cc?: string | readonly string[];
  /** Blind-copied recipients. */
  readonly bcc?: string | readonly string[];
  /** Where replies go, when not to `from`. */
  readonly replyTo?: string;
  /** Required. */
  readonly subject: string;
  /** The plain-text body. */
  readonly text?: string;
  /** The HTML body. */
  readonly html?: string;
  /**
   * Extra headers; `Message-ID` and `Idempotency-Key` are the sender's, and the headers of the
   * fields above and of the message's structure (`Bcc`, `Content-Type`, …) are refused. A reply
   * thread's `In-Reply-To` and `References`, and a `Date` of the message's own, are sent as given.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options of {@link emailSender}. */
export interface EmailSenderOptions {
  /** The domain of each message's `Message-ID`, `<key@messageIdDomain>`: a domain of yours. Required. */
  readonly messageIdDomain: string;
  /** Fields every message gets unless its payload sets them (a `from`, headers). */
  readonly defaults?: Partial<EmailMessage>;
}

/** The fields of a message passed to the transport; anything else in a payload is left out. */
const FIELDS = ['from', 'to', 'cc', 'bcc', 'replyTo', 'subject', 'text', 'html'] as const;
/** The headers the sender sets itself: a message's own are left out. */
const OWN_HEADERS: ReadonlySet<string> = new Set(['message-id', 'idempotency-key']);
/**
 * The headers a message's `headers` may not set: its addresses and subject come from its fields
 * only, and its structure from the transport (lower-cased).
 */
const FIELD_HEADERS: ReadonlySet<string> = new Set([
  'to',
  'cc',
  'bcc',
  'from',
  'sender',
  'reply-to',
  'subject',
  'return-path',
  'content-type',
  'mime-version',
  'content-transfer-encoding',
]);
/** The fields that become header lines of the message (`Subject:`, `To:`, …). */
const HEADER_FIELDS = ['from', 'to', 'cc', 'bcc', 'replyTo', 'subject'] as const;
/** A header's name (RFC 5322): printable US-ASCII, no colon. */
const HEADER_NAME = /^[!-9;-~]+$/;
/** A line break: in a header line, it would end the line and start a header (or the body) of its own. */
const LINE_BREAK = /[\r\n]/;
/** A domain name: labels of letters, digits and inner hyphens, joined by dots. */
const DOMAIN =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Whether `value` is an address field: a string, or a list of strings. */
const isAddresses = (value: unknown) =>
  typeof value === 'string' ||
  (Array.isArray(value) && value.every((entry) => typeof entry === 'string'));

/** Whether `value` is a plain object (`{…}` or `Object.create(null)`): no array, class instance or string. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** The strings of a header field once its type is checked: an address, a list of them, or none. */
const stringsIn = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((item) => typeof item === 'string');

/**
 * What is wrong with a message: `shape` a field of the wrong type, `injection` a line break or a
 * header that would add header lines of the payload's own.
 */
interface Fault {
  readonly kind: 'shape' | 'injection';
  readonly problem: string;
}

/**
 * The first fault of `message`'s fields (`whole`: a message to send, `to` and `subject`
 * required; else the sender's `defaults`, every field optional), or undefined. The types first,
 * then the line breaks in every string of a header field.
 */
function fieldFault(message: Record<string, unknown>, whole: boolean): Fault | undefined {
  const shape = (problem: string): Fault => ({ kind: 'shape', problem });
  const { to, subject } = message;
  if ((whole || to !== undefined) && (!isAddresses(to) || (to as string | string[]).length === 0))
    return shape('to must be an address or a list of addresses');
  for (const field of ['cc', 'bcc'] as const)
    if (message[field] !== undefined && !isAddresses(message[field]))
      return shape(`${field} must be an address or a list of addresses`);
  for (const field of ['from', 'replyTo'] as const)
    if (message[field] !== undefined && typeof message[field] !== 'string')
      return shape(`${field} must be an address (a string)`);
  if ((whole || subject !== undefined) && typeof subject !== 'string')
    return shape('subject must be a string');
  for (const field of ['text', 'html'] as const)
    if (message[field] !== undefined && typeof message[field] !== 'string')
      return shape(`${field} must be a string`);
  for (const field of HEADER_FIELDS)
    if (stringsIn(message[field]).some((value) => LINE_BREAK.test(value)))
      return {
        kind: 'injection',
        problem: `the email's ${field} has a line break (CR or LF), which would inject headers`,
      };
  return undefined;
}

/**
 * The first fault of `headers` (a message's or the defaults'), or undefined: a plain object of
 * string values, each name printable ASCII without `:` and none of {@link FIELD_HEADERS}, no
 * value with a line break.
 */
function headersFault(headers: unknown): Fault | undefined {
  if (headers === undefined) return undefined;
  if (!isPlainObject(headers))
    return { kind: 'shape', problem: 'headers must be an object of header names to strings' };
  const injection = (problem: string): Fault => ({ kind: 'injection', problem });
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string')
      return { kind: 'shape', problem: `the header ${name} must be a string` };
    if (!HEADER_NAME.test(name))
      return injection(
        `the email header name ${JSON.stringify(name)} is not printable ASCII without ":" (RFC 5322)`,
      );
    if (FIELD_HEADERS.has(name.toLowerCase()))
      return injection(
        `the email header ${name} may not be set through headers: the message's fields and the transport set it`,
      );
    if (LINE_BREAK.test(value))
      return injection(
        `the email header ${name} has a line break (CR or LF) in its value, which would inject headers`,
      );
  }
  return undefined;
}

/**
 * The mail one attempt sends: `defaults` (checked by {@link emailSender}), then the payload's
 * fields, then the sender's own.
 */
function mailOf(
  payload: unknown,
  defaults: Partial<EmailMessage>,
  key: string,
  domain: string,
): Record<string, unknown> {
  const refuse = (fault: Fault) =>
    fault.kind === 'shape'
      ? new PermanentSendFailure(`Invalid email message: ${fault.problem}`)
      : invalid(fault.problem);
  if (typeof payload !== 'object' || payload === null)
    throw refuse({ kind: 'shape', problem: 'expected an object' });
  const given = payload as Partial<EmailMessage>;
  const mail: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = given[field] ?? defaults[field];
    if (value !== undefined) mail[field] = value;
  }
  const fault = fieldFault(mail, true) ?? headersFault(given.headers ?? undefined);
  if (fault) throw refuse(fault);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...defaults.headers, ...given.headers }))
    if (!OWN_HEADERS.has(name.toLowerCase())) headers[name] = value;
  headers['Idempotency-Key'] = key;
  return { ...mail, headers, messageId: `<${key}@${domain}>` };
}

/**
 * Whether `error` is a refusal for good: a 5xx reply of the server (but 503, "bad sequence of
 * commands", which answers the state of a connection rather than the message; nodemailer too
 * counts it as transient), or an envelope refused before it reached a server (no recipient). A
 * 4xx reply (a recipient's mailbox busy, greylisting) is tried again.
 */
function refusedForGood(error: unknown): boolean {
  const { responseCode, code } = (error ?? {}) as { responseCode?: unknown; code?: unknown };
  if (typeof responseCode === 'number')
    return responseCode >= 500 && responseCode < 600 && responseCode !== 503;
  return code === 'EENVELOPE';
}

/**
 * A sender of emails (its payload an {@link EmailMessage}) through `transport` (a nodemailer
 * transporter, or anything with its `sendMail`): every attempt of a message carries the same
 * `Message-ID`, `<key@messageIdDomain>`, and an `Idempotency-Key` header with the effect key, so
 * a receiving system that deduplicates by either sees one message. A 5xx reply from the server
 * (a refused recipient, a refused message; not 503) or an envelope it cannot send: `dead` at once
 * ({@link PermanentSendFailure}). A 4xx reply, a connection failure, the deadline: tried again
 * after a backoff. Only the fields of {@link EmailMessage} reach the transport (never a
 * payload's attachments or file paths), each of its type (an address a string, `text` and
 * `html` strings, `headers` a plain object of strings; else {@link PermanentSendFailure}); none
 * with a line break where it would become a header line (a header's name or value, `subject`,
 * an address), and no header in `headers` that the fields or the transport set (`To`, `Cc`,
 * `Bcc`, `From`, `Sender`, `Reply-To`, `Subject`, `Return-Path`, `Content-Type`, `MIME-Version`,
 * `Content-Transfer-Encoding`): such a message is refused before the transport sees it,
 * `ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID`, `dead` at once.
 * @throws {ConfigError} naming `transport`, `messageIdDomain` or `defaults` when invalid
 * (`defaults` with a field or header that its messages would be refused for).
 * @example
 * const senders = {
 *   email: emailSender(nodemailer.createTransport(smtpUrl), {
 *     messageIdDomain: 'shop.example',
 *     defaults: { from: 'Shop <orders@shop.example>' },
 *   }),
 * };
 */
export function emailSender(
  transport: MailTransport,
  options: EmailSenderOptions,
): OutboxSender<EmailMessage> {
  if (typeof (transport as Partial<MailTransport> | null)?.sendMail !== 'function')
    throw new ConfigError('transport', 'must have a sendMail function (a nodemailer transporter)');
  const { messageIdDomain, defaults = {} } = options ?? ({} as Partial<EmailSenderOptions>);
  if (typeof messageIdDomain !== 'string' || !DOMAIN.test(messageIdDomain))
    throw new ConfigError(
      'messageIdDomain',
      `must be a domain name of yours (the part after "@" in each Message-ID), got ${JSON.stringify(messageIdDomain)}`,
    );
  if (typeof defaults !== 'object' || defaults === null)
    throw new ConfigError('defaults', 'must be an object of message fields');
  const fault =
    fieldFault(defaults as Record<string, unknown>, false) ?? headersFault(defaults.headers);
  if (fault) throw new ConfigError('defaults', fault.problem);
  return async ({ key, payload, signal }: SendInput<EmailMessage>) => {
    const mail = mailOf(payload, defaults, key, messageIdDomain);
    // The transport takes no signal: one aborted already is not sent at all.
    if (signal.aborted) throw signal.reason;
    try {
      await transport.sendMail(mail);
    } catch (error) {
      if (refusedForGood(error))
        throw new PermanentSendFailure(`The mail server refused it: ${(error as Error).message}`, {
          cause: error,
        });
      throw error;
    }
  };
}
