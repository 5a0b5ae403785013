/**
 * @module One dispatcher of the outbox storm, run as its own process (`fork` with
 * test-support/register): `createOutboxDispatcher` over a `SqlOutbox` with the built-in senders,
 * `httpSender` (Node's fetch) and `emailSender` (a nodemailer SMTP transport to the test's SMTP
 * server). Told to die (`die-in-handler`, with where), it SIGKILLs itself inside its next send:
 * `before-send` as the sender starts (the message committed and leased, nothing sent), `mid-send`
 * once the receiver has accepted it (before the row is marked done: the next dispatcher sends it
 * again, under the same key). No `uncaughtException` handler: a crash ends the process, and the
 * parent counts it.
 */
import { writeSync } from 'node:fs';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import {
  createOutboxDispatcher,
  emailSender,
  httpSender,
  type MailTransport,
} from '@webhook-idempotency/core/outbox';
import { DYING_MARKER } from '../storm/config';
import { type DispatcherDeath, MESSAGE_ID_DOMAIN, type OutboxDispatcherConfig } from './config';
import { connectStores } from './connect';

function main(): void {
  const config = JSON.parse(process.argv[2]!) as OutboxDispatcherConfig;
  const { outbox } = connectStores(config, 'outbox dispatcher');
  let death: DispatcherDeath | undefined;
  process.on('message', (message: { type?: string; where?: string }) => {
    if (message?.type === 'die-in-handler')
      death = message.where === 'mid-send' ? 'mid-send' : 'before-send';
  });
  const dieIf = (where: DispatcherDeath, sender: string, key: string | null | undefined) => {
    if (death !== where) return;
    writeSync(1, `${DYING_MARKER} ${where} ${sender} ${key ?? '(no key)'}\n`);
    process.kill(process.pid, 'SIGKILL');
  };

  // The senders' own I/O, wrapped only to die at the two points a test wants.
  const fetchThenMaybeDie: typeof fetch = async (input, init) => {
    const key = new Headers(init?.headers).get('idempotency-key');
    dieIf('before-send', 'http', key);
    const response = await fetch(input, init);
    if (response.ok) dieIf('mid-send', 'http', key);
    return response;
  };
  const smtp = nodemailer.createTransport({
    host: '127.0.0.1',
    port: config.smtpPort,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 10_000,
  });
  const transport: MailTransport = {
    async sendMail(mail) {
      // The Message-ID is `<key@domain>`: the marker names the effect key, as the HTTP one does.
      const key = /^<([^@>]+)@/.exec(String(mail.messageId ?? ''))?.[1];
      dieIf('before-send', 'email', key);
      const info = await smtp.sendMail(mail as SendMailOptions);
      dieIf('mid-send', 'email', key);
      return info;
    },
  };

  const dispatcher = createOutboxDispatcher({
    outbox,
    senders: {
      http: httpSender({ fetch: fetchThenMaybeDie }),
      email: emailSender(transport, { messageIdDomain: MESSAGE_ID_DOMAIN }),
    },
    concurrency: config.concurrency,
    pollIntervalMs: config.pollIntervalMs,
    visibilityTimeoutSeconds: config.visibilityTimeoutSeconds,
    sendTimeoutMs: config.sendTimeoutMs,
    backoffBaseMs: config.backoffBaseMs,
    backoffMaxMs: config.backoffMaxMs,
    maxFailures: config.maxFailures,
    onEvent: (event) => {
      // What an operator's log would show; the parent keeps the last lines of a crashed process.
      if (event.type === 'store-error' || event.type === 'dead')
        process.stderr.write(`[outbox dispatcher ${process.pid}] ${JSON.stringify(event)}\n`);
    },
  });
  dispatcher.start();
  process.send?.({ type: 'ready', pid: process.pid });
  // The parent is gone: do not outlive it.
  process.on('disconnect', () => process.exit(0));
}

main();
