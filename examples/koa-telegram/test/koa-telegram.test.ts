import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
import { createBotApp, type BotApp } from '../src/app';

const secretToken = 'koa_example_secret-1';
const telegram = signers.telegram({ secretToken, url: 'https://bot.example.com/telegram/webhook' });

describe('koa-telegram example', () => {
  let dir: string;
  let bot: BotApp;
  let server: Server;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'koa-telegram-'));
    bot = await createBotApp({ file: join(dir, 'bot.sqlite'), botId: 123456789, secretToken });
    server = bot.app.listen(0);
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    bot.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A text message in chat 42, as Telegram delivers the update. */
  const update = (updateId: number, text: string) =>
    telegram.event({
      update_id: updateId,
      message: { message_id: updateId, date: 1, chat: { id: 42, type: 'private' }, text },
    });
  const deliver = (delivery: signers.Delivery) => signers.send.supertest(request(server), delivery);

  it('counts each update once however often Telegram re-sends it, even concurrently', async () => {
    const hello = update(1001, 'hello');
    await deliver(hello).expect(200, { ok: true });
    const retries = await Promise.all(Array.from({ length: 15 }, () => deliver(hello.retry())));
    for (const res of retries) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 200) expect(res.headers['idempotent-replayed']).toBe('true');
    }
    await deliver(update(1002, 'again')).expect(200);
    expect(bot.db.prepare('SELECT messages FROM chat_stats WHERE chat_id = 42').get()).toEqual({
      messages: 2,
    });
    expect(bot.db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 2 });
  });

  it('acknowledges an update no route takes before any claim: 200, no receipt, nothing counted', async () => {
    const edited = telegram.event({
      update_id: 3001,
      edited_message: { message_id: 1, date: 1, edit_date: 2, chat: { id: 42 }, text: 'edit' },
    });
    await deliver(edited).expect(200, { received: true });
    expect(bot.db.prepare('SELECT count(*) AS n FROM webhook_receipts').get()).toEqual({ n: 0 });
    expect(bot.db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 0 });
  });

  it('refuses a wrong secret token before any claim', async () => {
    await deliver(update(2001, 'spoofed').forged()).expect(401);
    expect(bot.db.prepare('SELECT count(*) AS n FROM webhook_receipts').get()).toEqual({ n: 0 });
    expect(bot.db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 0 });
  });

  it('an update without update_id is a 400 naming it', async () => {
    const res = await deliver(telegram.event({ message: { text: 'no id' } })).expect(400);
    expect(res.body.message).toContain('update_id');
  });
});
