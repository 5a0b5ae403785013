/**
 * `send` for each signing family beyond a shared secret, end to end: an Express app on a real
 * port with a preset of each family on a SQLite file store, and the command (helpers/cli.ts) sending
 * each preset's sample with `--retry`: Discord (a key pair: `--key-file`, the preset holding the
 * public key), Square (the URL signed: the preset given the same URL), Postmark (HTTP Basic:
 * `--username/--password`), HubSpot (a batch, sent as a one-item batch, and URL-signed) and
 * Standard Webhooks. Each is accepted, its handler runs once, and its retry is not run again; a
 * missing credential is a usage error naming the flag.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as providers from '@webhook-idempotency/providers';
import { ExitCode } from '../src/exit-codes';
import { cli } from './helpers/cli';
import { type PresetApp, startPresetApp } from './helpers/preset-app';

const WHSEC = `whsec_${Buffer.from('standard-webhooks-secret-32bytes').toString('base64')}`;
const discordKey = generateKeyPairSync('ed25519');
const keyFile = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'send-')), 'discord.pem');
writeFileSync(keyFile, discordKey.privateKey.export({ format: 'pem', type: 'pkcs8' }));
const discordPublicHex = discordKey.publicKey
  .export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('hex');

let app: PresetApp;
let base: string;

beforeAll(async () => {
  app = await startPresetApp('send-families');
  base = app.base;
  const presets = {
    discord: providers.discord({ publicKey: discordPublicHex }),
    square: providers.square({ signatureKey: 'sq-key', notificationUrl: `${base}/square` }),
    postmark: providers.postmark({ username: 'hook', password: 'pm-password' }),
    hubspot: providers.hubspot({ clientSecret: 'hs-secret', targetUrl: `${base}/hubspot` }),
    standardWebhooks: providers.standardWebhooks({ secret: WHSEC }),
  };
  for (const [name, preset] of Object.entries(presets)) app.add(name, preset);
});
afterAll(() => app.close());

const FLAGS: Record<string, string[]> = {
  discord: ['--key-file', keyFile],
  square: ['--secret', 'sq-key'],
  postmark: ['--username', 'hook', '--password', 'pm-password'],
  hubspot: ['--secret', 'hs-secret'],
  standardWebhooks: ['--secret', WHSEC],
};

it.each(Object.keys(FLAGS))(
  '%s: its sample is accepted, its handler runs once, its retry is not run again',
  async (preset) => {
    const sent = await cli([
      'send',
      preset,
      `${base}/${preset}`,
      ...FLAGS[preset]!,
      '--retry',
      '--json',
    ]);
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    const { answers } = JSON.parse(sent.stdout);
    expect(answers.map((a: { status: number }) => a.status)).toEqual([200, 200]);
    expect(app.runs.get(preset)).toBe(1);
  },
);

it('a wrong credential is refused; a missing one is a usage error naming its flag', async () => {
  const wrong = await cli([
    'send',
    'postmark',
    `${base}/postmark`,
    '--username',
    'hook',
    '--password',
    'nope',
  ]);
  expect(wrong.code).toBe(ExitCode.ERROR);
  expect(wrong.stderr).toMatch(/answered 401/);
  const noKey = await cli(['send', 'discord', `${base}/discord`]);
  expect(noKey.code).toBe(ExitCode.USAGE);
  expect(noKey.stderr).toMatch(/discord needs --key-file/);
  const noWebhookId = await cli(['send', 'paypal', `${base}/paypal`, '--key-file', keyFile]);
  expect(noWebhookId.code).toBe(ExitCode.USAGE);
  expect(noWebhookId.stderr).toMatch(/paypal needs --webhook-id/);
});
