/** docs/providers.md#batched-deliveries: the Adyen route books each item once across a retry and a re-batch. */
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import express from 'express';
import request from 'supertest';
import { adyenRoute, batchedPresets, metaRoute } from '../src/batches';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

/** An Adyen item, signed as Adyen documents: HMAC-SHA256 of the joined fields under the hex key. */
function item(pspReference: string, eventCode: string) {
  const fields = [pspReference, '', 'ShopECOM', 'order-7', 2500, 'EUR', eventCode, 'true'];
  const hmacSignature = createHmac('sha256', Buffer.from(HMAC_KEY, 'hex'))
    .update(fields.join(':'))
    .digest('base64');
  return {
    NotificationRequestItem: {
      pspReference,
      merchantAccountCode: 'ShopECOM',
      merchantReference: 'order-7',
      amount: { value: 2500, currency: 'EUR' },
      eventCode,
      success: 'true',
      additionalData: { hmacSignature },
    },
  };
}
const batch = (...items: ReturnType<typeof item>[]) => ({
  live: 'false',
  notificationItems: items,
});

describe('the batch handler of docs/providers.md', () => {
  let dir: string;
  let db: Database.Database;
  let app: express.Express;
  beforeAll(async () => {
    process.env.ADYEN_HMAC_KEY = HMAC_KEY;
    dir = mkdtempSync(join(tmpdir(), 'wi-batches-'));
    db = new Database(join(dir, 'app.db'));
    await Schema.createTable(db);
    db.exec('CREATE TABLE payments (psp TEXT, event TEXT, amount INTEGER)');
    app = express();
    adyenRoute(app, db);
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers [accepted] and books each item once across a retry and a re-batch', async () => {
    const post = (body: object) => request(app).post('/webhooks/adyen').send(body);
    const first = batch(
      item('8815000000000001', 'AUTHORISATION'),
      item('8815000000000002', 'CAPTURE'),
    );
    const answered = await post(first);
    expect([answered.status, answered.text]).toEqual([200, '[accepted]']);
    expect((await post(first)).text).toBe('[accepted]');
    const rebatched = batch(
      item('8815000000000002', 'CAPTURE'),
      item('8815000000000003', 'REFUND'),
    );
    expect((await post(rebatched)).text).toBe('[accepted]');
    expect(db.prepare('SELECT psp, event FROM payments ORDER BY psp').all()).toEqual([
      { psp: '8815000000000001', event: 'AUTHORISATION' },
      { psp: '8815000000000002', event: 'CAPTURE' },
      { psp: '8815000000000003', event: 'REFUND' },
    ]);
    const forged = batch({
      NotificationRequestItem: {
        ...item('8815000000000004', 'REFUND').NotificationRequestItem,
        amount: { value: 1, currency: 'EUR' },
      },
    });
    expect((await post(forged)).status).toBe(401);
  });

  it("builds the other batched presets, and answers Meta's verification GET on the route", async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    Object.assign(process.env, {
      SENDGRID_WEBHOOK_PUBLIC_KEY: publicKey
        .export({ format: 'der', type: 'spki' })
        .toString('base64'),
      HUBSPOT_CLIENT_SECRET: 'hubspot-secret',
      META_APP_SECRET: 'meta-secret',
      META_VERIFY_TOKEN: 'meta-token',
    });
    const { sendgridPreset, hubspotPreset } = batchedPresets();
    expect([sendgridPreset.provider, hubspotPreset.provider]).toEqual(['sendgrid', 'hubspot']);
    const metaApp = express();
    metaRoute(metaApp, new SqlStore(db), (_req, res) => void res.sendStatus(200));
    const verified = await request(metaApp).get(
      '/webhooks/meta?hub.mode=subscribe&hub.challenge=8&hub.verify_token=meta-token',
    );
    expect([verified.status, verified.text]).toEqual([200, '8']);
    const refused = await request(metaApp).get(
      '/webhooks/meta?hub.mode=subscribe&hub.challenge=8&hub.verify_token=guess',
    );
    expect(refused.status).toBe(403);
  });
});
