/**
 * One refused item of a batch used to block every item after it, on every redelivery: a WhatsApp
 * notification (the Meta preset, through Express, on a SQLite file in transactional mode) whose
 * second message repeats an id already booked with another text was answered 422 at that item, and
 * each redelivery replayed the items before it and stopped at the same place, so the messages
 * after it were never booked (WhatsApp retries for 7 days, then drops them). Now the batch goes on
 * past the refused item and answers 422 at the end: the other messages are booked once, and every
 * redelivery replays them and refuses only that one again.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import request from 'supertest';
import { requireTransaction } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { idempotent } from '../../src';

const SECRET = 'regression app secret';

/** A signed WhatsApp notification carrying one change per message: `[wamid, text]`. */
function notification(messages: readonly (readonly [string, string])[]) {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'waba-1',
        changes: messages.map(([id, text]) => ({
          field: 'messages',
          value: { messages: [{ id, from: '1555', type: 'text', text: { body: text } }] },
        })),
      },
    ],
  });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return { body, signature };
}

it('a message refused for another text under its id: the messages after it are booked once, every redelivery answers 422 and books nothing again', async () => {
  const db = new Database(
    join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'refused-')), 'r.db'),
  );
  db.pragma('journal_mode = WAL');
  await Schema.createTable(db);
  db.exec('CREATE TABLE booked (wamid TEXT, text TEXT)');
  const store = new SqlStore(db);
  const app = express();
  app.post(
    '/webhooks/meta',
    express.raw({ type: '*/*' }),
    idempotent({ store, preset: providers.meta({ appSecret: SECRET }), transactional: true }),
    async (req, res) => {
      await req.idempotency!.batch!.each<providers.MetaItem>((item, context) => {
        const value = item.change?.value as { messages: { id: string; text: { body: string } }[] };
        const [message] = value.messages;
        requireTransaction(context, store)
          .prepare('INSERT INTO booked (wamid, text) VALUES (?, ?)')
          .run(message!.id, message!.text.body);
      });
      res.status(200).send('EVENT_RECEIVED');
    },
  );
  const send = ({ body, signature }: { body: string; signature: string }) =>
    request(app)
      .post('/webhooks/meta')
      .set({ 'content-type': 'application/json', 'x-hub-signature-256': signature })
      .send(body);
  const booked = () =>
    db.prepare('SELECT wamid, text FROM booked ORDER BY rowid').all() as {
      wamid: string;
      text: string;
    }[];

  try {
    expect((await send(notification([['wamid.A', 'hello']]))).status).toBe(200);

    const conflicting = notification([
      ['wamid.B', 'one'],
      ['wamid.A', 'hello, edited'],
      ['wamid.C', 'two'],
      ['wamid.D', 'three'],
    ]);
    const statuses: number[] = [];
    for (let delivery = 0; delivery < 10; delivery++) {
      const res = await send(conflicting);
      statuses.push(res.status);
      expect(res.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH' });
      expect(res.body.message).toContain('meta/wamid.A');
    }
    expect(statuses).toEqual(Array(10).fill(422));
    expect(booked()).toEqual([
      { wamid: 'wamid.A', text: 'hello' },
      { wamid: 'wamid.B', text: 'one' },
      { wamid: 'wamid.C', text: 'two' },
      { wamid: 'wamid.D', text: 'three' },
    ]);
    for (const id of ['wamid.B', 'wamid.C', 'wamid.D'])
      expect(
        await store.find({ provider: 'meta', externalId: id }, { now: Date.now() }),
      ).toMatchObject({
        status: 'completed',
        attempts: 1,
      });
  } finally {
    db.close();
  }
});
