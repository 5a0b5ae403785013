/**
 * The email sender through nodemailer's SMTP transport to a real SMTP server (`smtp-server`) on
 * 127.0.0.1 that records every message it takes by its Message-ID: each attempt carries the same
 * Message-ID and Idempotency-Key header, a refusal for good (550) is dead at once, a temporary
 * one (451) is retried, and only the message's own fields reach the transport.
 */
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { ErrorCode, IdempotencyError } from '../../src';
import { InMemoryInbox } from '../../src/inbox';
import {
  createOutboxDispatcher,
  type EmailMessage,
  emailSender,
  type MailTransport,
  type OutboxEvent,
  PermanentSendFailure,
} from '../../src/outbox';
import { configOptionOf, outboxInto, rejection } from './support';

interface Taken {
  readonly to: string[];
  readonly headers: Record<string, string>;
  readonly raw: string;
}

let server: SMTPServer;
let transport: MailTransport & { close(): void };
/** The messages the server took (its DATA accepted). */
let taken: Taken[];
/** DATA the server was sent, per Message-ID, accepted or not. */
let dataSeen: Map<string, number>;
/** Per recipient, what the server answers its RCPT TO with (one answer per attempt, then accepts). */
let rcptAnswers: Map<string, number[]>;
/** What the server answers the DATA of the next messages with (one per message, then accepts). */
let dataAnswers: number[];

/** An SMTP reply as smtp-server sends it back: an error with its response code. */
const reply = (code: number) =>
  Object.assign(new Error(code >= 500 ? 'mailbox unavailable' : 'try again later'), {
    responseCode: code,
  });

/** A message's header block, unfolded, by lower-cased name. */
function headersOf(raw: string): Record<string, string> {
  const block = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return Object.fromEntries(
    block.split(/\r?\n/).map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
}

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = rcptAnswers.get(address.address)?.shift();
      callback(code === undefined ? undefined : reply(code));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = headersOf(raw);
        const id = headers['message-id'] ?? '';
        dataSeen.set(id, (dataSeen.get(id) ?? 0) + 1);
        const code = dataAnswers.shift();
        if (code !== undefined) return callback(reply(code));
        taken.push({ to: session.envelope.rcptTo.map((r) => r.address), headers, raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
  });
});
afterAll(async () => {
  transport.close();
  await new Promise<void>((resolve) => server.close(resolve));
});
beforeEach(() => {
  taken = [];
  dataSeen = new Map();
  rcptAnswers = new Map();
  dataAnswers = [];
});

const KEY = '14abbdf9-b58f-8f26-bca1-45d1e4954304';
const receipt: EmailMessage = {
  from: 'Shop <orders@shop.example>',
  to: 'ada@customer.example',
  subject: 'Your receipt',
  text: 'Paid: 5.00 EUR',
};

/** One attempt of `sender` with `payload`, as the dispatcher makes it. */
const attempt = (
  payload: unknown,
  sender = emailSender(transport, { messageIdDomain: 'shop.example' }),
) =>
  sender({
    key: KEY,
    name: 'receipt-email',
    payload: payload as EmailMessage,
    receipt: { provider: 'stripe', externalId: 'evt_1' },
    attempt: 1,
    signal: new AbortController().signal,
  });

it('sends the message with Message-ID <key@domain> and an Idempotency-Key header', async () => {
  await attempt({
    ...receipt,
    headers: { 'X-Order': '7', 'Message-ID': '<mine@elsewhere>', 'idempotency-key': 'my-own' },
  });
  expect(taken).toHaveLength(1);
  expect(taken[0]!.to).toEqual(['ada@customer.example']);
  expect(taken[0]!.headers).toMatchObject({
    'message-id': `<${KEY}@shop.example>`,
    'idempotency-key': KEY,
    subject: 'Your receipt',
    'x-order': '7',
    from: 'Shop <orders@shop.example>',
  });
  expect(taken[0]!.raw).not.toContain('mine@elsewhere');
  expect(taken[0]!.raw).not.toContain('my-own');
});

it('fills in the defaults a message leaves out; only the message fields reach the transport', async () => {
  const sender = emailSender(transport, {
    messageIdDomain: 'shop.example',
    defaults: { from: 'orders@shop.example', headers: { 'X-Shop': 'one' } },
  });
  const payload = {
    to: ['ada@customer.example', 'bob@customer.example'],
    subject: 'Hello',
    text: 'body',
    attachments: [{ filename: 'secret.txt', content: 'attached-content' }],
  };
  await attempt(payload, sender);
  expect(taken[0]!.to).toEqual(['ada@customer.example', 'bob@customer.example']);
  expect(taken[0]!.headers).toMatchObject({ from: 'orders@shop.example', 'x-shop': 'one' });
  expect(taken[0]!.raw).not.toContain('secret.txt');
});

it("a reply's In-Reply-To and References, and a Date of its own, are the message's: sent as given, the envelope still its fields'", async () => {
  const thread = {
    'In-Reply-To': '<order-7@shop.example>',
    References: '<order-7@shop.example> <ticket-12@help.example>',
    Date: 'Tue, 01 Dec 2026 10:00:00 +0000',
  };
  // Two attempts of one message: each carries the Date given, not the time it was sent.
  await attempt({ ...receipt, headers: thread });
  await attempt({ ...receipt, headers: thread });
  expect(taken).toHaveLength(2);
  for (const { to, headers } of taken) {
    expect(to).toEqual(['ada@customer.example']);
    expect(headers).toMatchObject({
      'in-reply-to': thread['In-Reply-To'],
      references: thread.References,
      date: thread.Date,
      'message-id': `<${KEY}@shop.example>`,
    });
  }
});

it('a 550 for the recipient is a refusal for good; a 451 or a 503 a failure to retry', async () => {
  rcptAnswers.set('gone@customer.example', [550]);
  const refused = await rejection(attempt({ ...receipt, to: 'gone@customer.example' }));
  expect(refused).toBeInstanceOf(PermanentSendFailure);
  expect(refused.message).toMatch(/^The mail server refused it: .*550/);
  rcptAnswers.set('busy@customer.example', [451]);
  const later = await rejection(attempt({ ...receipt, to: 'busy@customer.example' }));
  expect(later).not.toBeInstanceOf(PermanentSendFailure);
  expect((later as Error & { responseCode?: number }).responseCode).toBe(451);
  // 503 answers the state of the connection ("bad sequence of commands"), not the message.
  rcptAnswers.set('busy@customer.example', [503]);
  const sequence = await rejection(attempt({ ...receipt, to: 'busy@customer.example' }));
  expect(sequence).not.toBeInstanceOf(PermanentSendFailure);
  expect(taken).toEqual([]);
});

describe('a message that is no email is refused for good, nothing sent', () => {
  it.each<[string, unknown, string]>([
    ['not an object', 'hello', 'expected an object'],
    ['no recipient', { subject: 'x' }, 'to must be an address or a list of addresses'],
    [
      'an empty recipient list',
      { to: [], subject: 'x' },
      'to must be an address or a list of addresses',
    ],
    [
      'a bad cc',
      { to: 'a@b.example', cc: 5, subject: 'x' },
      'cc must be an address or a list of addresses',
    ],
    ['no subject', { to: 'a@b.example' }, 'subject must be a string'],
    [
      'a header that is no string',
      { ...receipt, headers: { 'X-N': 5 } },
      'the header X-N must be a string',
    ],
    [
      'a header that is no string, under a name that is refused too',
      { ...receipt, headers: { 'Bcc:': 5 } },
      'the header Bcc: must be a string',
    ],
    [
      'a from in a nested list',
      { ...receipt, from: [['shop@shop.example\r\nBcc: all@victims.example']] },
      'from must be an address (a string)',
    ],
    [
      'a from as an address object',
      { ...receipt, from: { name: 'Shop\r\nBcc: all@victims.example', address: 'o@shop.example' } },
      'from must be an address (a string)',
    ],
    [
      'a replyTo as an address object',
      { ...receipt, replyTo: { name: 'Shop', address: 'help@shop.example' } },
      'replyTo must be an address (a string)',
    ],
    [
      'a recipient in a nested list',
      { ...receipt, to: [['ada@customer.example\r\nX-Spam: no']] },
      'to must be an address or a list of addresses',
    ],
    [
      'a text that is a file path',
      { ...receipt, text: { path: '/etc/passwd' } },
      'text must be a string',
    ],
    [
      'headers that are a string',
      { ...receipt, headers: 'ab' },
      'headers must be an object of header names to strings',
    ],
    [
      'headers that are a list',
      { ...receipt, headers: [['Bcc', 'all@victims.example']] },
      'headers must be an object of header names to strings',
    ],
  ])('%s', async (_case, payload, problem) => {
    const error = await rejection(attempt(payload));
    expect(error).toBeInstanceOf(PermanentSendFailure);
    expect(error.message).toBe(`Invalid email message: ${problem}`);
    expect(dataSeen.size).toBe(0);
  });
});

describe('a line break where it would become a header line is refused for good, the transport never called', () => {
  /** A transport that records what it is handed: a transport other than nodemailer may write it as it is. */
  const handed: unknown[] = [];
  const raw: MailTransport = {
    sendMail: async (mail) => void handed.push(mail),
  };
  beforeEach(() => {
    handed.length = 0;
  });

  it.each<[string, unknown, string]>([
    [
      'a CR/LF in a header value',
      { ...receipt, headers: { 'X-Order': '7\r\nBcc: all@victims.example' } },
      'the email header X-Order has a line break (CR or LF) in its value',
    ],
    [
      'a lone LF in a header value',
      { ...receipt, headers: { 'X-Order': '7\nBcc: all@victims.example' } },
      'the email header X-Order has a line break (CR or LF) in its value',
    ],
    [
      'a CR/LF in a header name',
      { ...receipt, headers: { 'X-Order: 7\r\nBcc': 'all@victims.example' } },
      'the email header name "X-Order: 7\\r\\nBcc" is not printable ASCII without ":"',
    ],
    [
      'a colon in a header name',
      { ...receipt, headers: { 'Bcc:': 'all@victims.example' } },
      'the email header name "Bcc:" is not printable ASCII without ":"',
    ],
    [
      'a CR/LF in the subject',
      { ...receipt, subject: 'Your receipt\r\nBcc: all@victims.example' },
      "the email's subject has a line break (CR or LF)",
    ],
    [
      'a CR/LF in one of the recipients',
      { ...receipt, to: ['ada@customer.example', 'bob@customer.example\r\nX-Spam: no'] },
      "the email's to has a line break (CR or LF)",
    ],
    [
      'a CR/LF in the from',
      { ...receipt, from: 'Shop <orders@shop.example>\r\nBcc: all@victims.example' },
      "the email's from has a line break (CR or LF)",
    ],
    [
      'a lone LF in the replyTo',
      { ...receipt, replyTo: 'help@shop.example\nBcc: all@victims.example' },
      "the email's replyTo has a line break (CR or LF)",
    ],
    [
      'a Bcc header',
      { ...receipt, headers: { Bcc: 'all@victims.example' } },
      'the email header Bcc may not be set through headers',
    ],
    [
      'a To header in lower case',
      { ...receipt, headers: { to: 'all@victims.example' } },
      'the email header to may not be set through headers',
    ],
    [
      'a Content-Type header in mixed case',
      { ...receipt, headers: { 'content-TYPE': 'multipart/mixed; boundary=x' } },
      'the email header content-TYPE may not be set through headers',
    ],
  ])('%s', async (_case, payload, problem) => {
    const error = await rejection(
      attempt(payload, emailSender(raw, { messageIdDomain: 'shop.example' })),
    );
    expect(error).toBeInstanceOf(IdempotencyError);
    expect(error).toMatchObject({ code: ErrorCode.OUTBOX_MESSAGE_INVALID });
    expect(error.message).toContain(`Invalid outbox message: ${problem}`);
    expect(handed).toEqual([]);
  });

  it('a header without a line break reaches the transport as it is', async () => {
    await attempt(
      { ...receipt, headers: { 'X-Order': '7; tab\there' } },
      emailSender(raw, { messageIdDomain: 'shop.example' }),
    );
    expect(handed).toEqual([
      expect.objectContaining({ headers: { 'X-Order': '7; tab\there', 'Idempotency-Key': KEY } }),
    ]);
  });
});

it('refuses invalid options with a ConfigError naming each', () => {
  const named = configOptionOf;
  expect(named(() => emailSender({} as MailTransport, { messageIdDomain: 'shop.example' }))).toBe(
    'transport',
  );
  expect(named(() => emailSender(transport, {} as never))).toBe('messageIdDomain');
  expect(named(() => emailSender(transport, undefined as never))).toBe('messageIdDomain');
  for (const domain of ['', 'shop example', '@shop.example', 'shop.example.', '-shop.example'])
    expect(named(() => emailSender(transport, { messageIdDomain: domain }))).toBe(
      'messageIdDomain',
    );
  expect(
    named(() => emailSender(transport, { messageIdDomain: 'shop.example', defaults: 5 as never })),
  ).toBe('defaults');
});

describe('defaults a message would be refused for are refused once, by emailSender', () => {
  it.each<[string, unknown, string]>([
    [
      'a CR/LF in a header',
      { headers: { 'X-Shop': 'one\r\nBcc: all@victims.example' } },
      'the email header X-Shop has a line break (CR or LF) in its value',
    ],
    [
      'a Bcc header',
      { headers: { BCC: 'all@victims.example' } },
      'the email header BCC may not be set through headers',
    ],
    ['a header that is no string', { headers: { 'X-N': 5 } }, 'the header X-N must be a string'],
    [
      'headers that are a string',
      { headers: 'ab' },
      'headers must be an object of header names to strings',
    ],
    ['a subject that is no string', { subject: 5 }, 'subject must be a string'],
    [
      'a CR/LF in the subject',
      { subject: 'Hi\r\nBcc: all@victims.example' },
      "the email's subject has a line break (CR or LF)",
    ],
    [
      'a from as an address object',
      { from: { name: 'Shop', address: 'o@shop.example' } },
      'from must be an address (a string)',
    ],
    [
      'a CR/LF in the from',
      { from: 'orders@shop.example\r\nBcc: all@victims.example' },
      "the email's from has a line break (CR or LF)",
    ],
    ['an empty to', { to: [] }, 'to must be an address or a list of addresses'],
  ])('%s', (_case, defaults, problem) => {
    const build = () =>
      emailSender(transport, {
        messageIdDomain: 'shop.example',
        defaults: defaults as Partial<EmailMessage>,
      });
    expect(configOptionOf(build)).toBe('defaults');
    expect(build).toThrow(`Invalid option "defaults": ${problem}`);
  });

  it('defaults without to or subject are fine: each message gives them', () => {
    expect(() =>
      emailSender(transport, {
        messageIdDomain: 'shop.example',
        defaults: { from: 'orders@shop.example', replyTo: 'help@shop.example' },
      }),
    ).not.toThrow();
  });
});

describe('through the dispatcher', () => {
  let time: number;
  let inbox: InMemoryInbox;
  let events: OutboxEvent[];

  beforeEach(() => {
    time = Date.UTC(2026, 0, 1);
    inbox = new InMemoryInbox({ now: () => time });
    events = [];
  });

  const dispatcher = () =>
    createOutboxDispatcher({
      outbox: inbox,
      senders: { email: emailSender(transport, { messageIdDomain: 'shop.example' }) },
      backoffBaseMs: 100,
      random: () => 0,
      onEvent: (event) => void events.push(event),
    });

  const recordReceipt = (to: string) =>
    outboxInto(inbox).record('evt_9', {
      name: 'receipt-email',
      sender: 'email',
      payload: { ...receipt, to } satisfies EmailMessage,
    });

  it('every attempt carries the same Message-ID and Idempotency-Key: a 451 to its data, then taken', async () => {
    const key = await recordReceipt('ada@customer.example');
    dataAnswers.push(451);
    const d = dispatcher();
    expect(await d.runOnce()).toBe(1);
    time += 3_600_000;
    expect(await d.runOnce()).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['retry', 'sent']);
    expect([...dataSeen]).toEqual([[`<${key}@shop.example>`, 2]]);
    expect(taken.map((t) => t.headers['idempotency-key'])).toEqual([key]);
    expect(await inbox.find('email', key)).toMatchObject({ status: 'done', failures: 1 });
  });

  it('a message with a CR/LF in a header is dead at once, never sent: ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID is not retried', async () => {
    const key = await outboxInto(inbox).record('evt_11', {
      name: 'receipt-email',
      sender: 'email',
      payload: { ...receipt, headers: { 'X-Order': '7\r\nBcc: all@victims.example' } },
    });
    expect(await dispatcher().runOnce()).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['dead']);
    expect(await inbox.find('email', key)).toMatchObject({
      status: 'dead',
      failures: 1,
      lastError: expect.stringMatching(
        /^IdempotencyError: Invalid outbox message: the email header X-Order has a line break.+err_idempotency_outbox_message_invalid/i,
      ),
    });
    expect(dataSeen.size).toBe(0);
  });

  it('a 550 to its recipient is dead at once; a 451 is retried', async () => {
    const dead = await recordReceipt('gone@customer.example');
    rcptAnswers.set('gone@customer.example', [550]);
    expect(await dispatcher().runOnce()).toBe(1);
    expect(await inbox.find('email', dead)).toMatchObject({
      status: 'dead',
      failures: 1,
      lastError: expect.stringMatching(/^PermanentSendFailure: The mail server refused it: .*550/),
    });
    events = [];
    const retried = await outboxInto(inbox).record('evt_10', {
      name: 'receipt-email',
      sender: 'email',
      payload: { ...receipt, to: 'busy@customer.example' },
    });
    rcptAnswers.set('busy@customer.example', [451]);
    expect(await dispatcher().runOnce()).toBe(1);
    expect(events).toEqual([expect.objectContaining({ type: 'retry' })]);
    expect(await inbox.find('email', retried)).toMatchObject({ status: 'pending', failures: 1 });
    time += 3_600_000;
    expect(await dispatcher().runOnce()).toBe(1);
    expect(await inbox.find('email', retried)).toMatchObject({ status: 'done' });
    expect(taken.map((t) => t.headers['message-id'])).toEqual([`<${retried}@shop.example>`]);
  });
});
