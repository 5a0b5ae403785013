/** @module `send` added to the program: it needs no database, only the streams. */
import type { Command } from 'commander';
import { listPresets, type SendOptions, send } from '../commands/send';
import { CliError, ExitCode } from '../exit-codes';
import { type CliIo, colorFor, Printer } from '../output';

/** Adds `send [preset] [url]` to `program`; its action hands its exit code to `done`. */
export function addSendCommand(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('send')
    .description(
      'POST a signed sample delivery of a preset to your endpoint (a dev loop); --list: the presets',
    )
    .argument('[preset]', 'the preset factory, as in providers.<preset>(…): stripe, github, …')
    .argument('[url]', 'where to POST it: http://localhost:3000/webhooks/stripe')
    .option('--secret <secret>', "the preset's secret, token or HMAC key, as your endpoint has it")
    .option('--username <name>', 'HTTP Basic login (postmark, chargebee, uzum, payme, adyen)')
    .option(
      '--password <password>',
      'HTTP Basic password (postmark, chargebee, uzum, payme, adyen)',
    )
    .option(
      '--key-file <pem>',
      'private key PEM to sign with; the preset holds its public key (discord, sendgrid, wise, paypal, telnyx)',
    )
    .option(
      '--public-key <key>',
      "braintree: the merchant's public key (--secret: its private key)",
    )
    .option('--webhook-id <id>', "paypal: the webhook id, as the preset's webhookId")
    .option('--cert-url <url>', 'paypal: PAYPAL-CERT-URL (default: a sandbox certificate URL)')
    .option('--signature-header <name>', 'hmac: the signature header (default x-signature)')
    .option(
      '--id-header <name>',
      "hmac: the delivery id header, the preset's key (default x-webhook-id)",
    )
    .option('--event <type>', 'the sample event (send --list), or the type of a --body')
    .option('--body <file>', 'send these exact bytes instead of a sample')
    .option('--id <id>', 'the event or delivery id (default: a new one each time)')
    .option('--retry', 'then send it again, as the provider retries it (it should be a replay)')
    .option('--list', 'list the presets, their sample events and the flags each signs with')
    .addHelpText(
      'after',
      '\nURL-signed presets (square, hubspot, twilio, mandrill) sign the <url> given: pass the URL the\n' +
        'preset was given. Batched presets (sendgrid, hubspot, adyen, meta, auth0, okta, …) send a\n' +
        'one-item batch; presets with a handshake (discord, twitch, zoom, meta, braintree, okta, …)\n' +
        'send a normal event.',
    )
    .option('--json', 'print JSON')
    .action(async (preset: string | undefined, url: string | undefined, options: SendOptions) => {
      const json = options.json === true;
      const out = new Printer(io.stdout, !json && colorFor(io.stdout, io.env), !json);
      if (options.list) return done(listPresets(out, json));
      if (preset === undefined || url === undefined)
        throw new CliError(ExitCode.USAGE, 'send needs <preset> <url> (or --list).');
      done(await send(out, preset, url, options));
    });
}
