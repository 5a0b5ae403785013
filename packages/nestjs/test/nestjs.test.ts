/**
 * What only Nest has, on both platforms: exception filters, guards and pipes around the claim,
 * the store from dependency injection, per-route options, `@IdempotencyContext()`.
 */
import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ArgumentsHost,
  BadRequestException,
  Body,
  Catch,
  type CanActivate,
  Controller,
  type ExceptionFilter,
  Header,
  Headers,
  HttpCode,
  HttpException,
  Inject,
  Injectable,
  Module,
  type PipeTransform,
  Post,
  Res,
  UseFilters,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import {
  ConfigError,
  IdempotencyGuard,
  InMemoryStore,
  type RequestIdempotency,
  type Store,
} from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import request from 'supertest';
import { Idempotent, IdempotencyContext, IdempotencyModule, type NestRequest } from '../src';
import { type Platform, startNest } from '@webhook-idempotency/adapter-conformance/apps/nestjs';

const key = (req: NestRequest) => req.headers['x-event-id'] as string | undefined;
const platforms: Platform[] = ['express', 'fastify'];

/** The receipt of `externalId`, read through a guard on `store`. */
const receipt = (store: Store<unknown>, externalId: string, provider = 'p') =>
  new IdempotencyGuard(store).find({ provider, externalId });

/** Answers every HttpException with HTTP 200 and a JSON-RPC style error, as "always 200" protocols want. */
@Catch(HttpException)
class Always200 implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost) {
    const res = host.switchToHttp().getResponse();
    const body = { error: exception.message };
    if (typeof res.code === 'function') res.code(200).send(body);
    else res.status(200).json(body);
  }
}

/** Lets a request through only with `x-allowed: yes`. */
@Injectable()
class AllowedGuard implements CanActivate {
  canActivate(context: import('@nestjs/common').ExecutionContext): boolean {
    return context.switchToHttp().getRequest().headers['x-allowed'] === 'yes';
  }
}

/** Refuses a body without a numeric `amount`. */
class AmountPipe implements PipeTransform {
  transform(value: unknown) {
    const amount = (value as { amount?: unknown } | undefined)?.amount;
    if (typeof amount !== 'number') throw new BadRequestException('amount must be a number');
    return value;
  }
}

describe.each(platforms)('nestjs on %s', (platform) => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  async function serve(module: import('@nestjs/common').Type) {
    const running = await startNest(platform, module);
    closing.push(running.close);
    return running;
  }

  it('a thrown HttpException goes to the exception filter: its 200 answer is not stored, the receipt is failed, the retry runs again', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    @Controller()
    class Hooks {
      @Post('hook')
      @HttpCode(200)
      @UseFilters(Always200)
      @Idempotent()
      hook() {
        calls++;
        if (calls === 1) throw new HttpException('busy', 503);
        return { call: calls };
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store, provider: 'p', key })],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const first = await request(server).post('/hook').set('x-event-id', 'e1').send({});
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ error: 'busy' });
    expect(await receipt(store, 'e1')).toMatchObject({
      status: 'failed',
      attempts: 1,
    });
    const second = await request(server).post('/hook').set('x-event-id', 'e1').send({});
    expect(second.body).toEqual({ call: 2 });
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const third = await request(server).post('/hook').set('x-event-id', 'e1').send({});
    expect([third.headers['idempotent-replayed'], third.body]).toEqual(['true', { call: 2 }]);
    expect(calls).toBe(2);
  });

  it('a guard that refuses runs before the claim: 403, no receipt; an allowed request is claimed', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    @Controller()
    class Hooks {
      @Post('hook')
      @UseGuards(AllowedGuard)
      @Idempotent()
      hook() {
        return { call: ++calls };
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store, provider: 'p', key })],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const refused = await request(server).post('/hook').set('x-event-id', 'g1').send({});
    expect(refused.status).toBe(403);
    expect(await receipt(store, 'g1')).toBeNull();
    const allowed = await request(server)
      .post('/hook')
      .set('x-event-id', 'g1')
      .set('x-allowed', 'yes')
      .send({});
    expect(allowed.status).toBe(201);
    expect(await receipt(store, 'g1')).toMatchObject({
      status: 'completed',
    });
    expect(calls).toBe(1);
  });

  it('a pipe that refuses runs before the claim: 400, no receipt; a valid body is claimed and replayed', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    @Controller()
    class Hooks {
      @Post('hook')
      @UsePipes(AmountPipe)
      @Idempotent()
      hook(@Body() body: { amount: number }) {
        return { call: ++calls, amount: body.amount };
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store, provider: 'p', key, fingerprint: false })],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const bad = await request(server).post('/hook').set('x-event-id', 'v1').send({ amount: 'x' });
    expect(bad.status).toBe(400);
    expect(await receipt(store, 'v1')).toBeNull();
    const good = await request(server).post('/hook').set('x-event-id', 'v1').send({ amount: 5 });
    expect([good.status, good.body]).toEqual([201, { call: 1, amount: 5 }]);
    const again = await request(server).post('/hook').set('x-event-id', 'v1').send({ amount: 5 });
    expect([again.headers['idempotent-replayed'], again.body]).toEqual([
      'true',
      { call: 1, amount: 5 },
    ]);
    expect(calls).toBe(1);
  });

  it('forRootAsync takes the store from DI; per-route options merge over the module options; @IdempotencyContext() hands the key', async () => {
    const STORE = Symbol('store');
    const store = new InMemoryStore();
    @Module({ providers: [{ provide: STORE, useValue: store }], exports: [STORE] })
    class StoreModule {}
    @Controller()
    class Hooks {
      @Post('github')
      @Idempotent({
        provider: 'github',
        key: (req) => req.headers['x-github-delivery'] as string | undefined,
      })
      github(
        @Headers('x-github-delivery') id: string,
        @IdempotencyContext() run: RequestIdempotency,
      ) {
        return { id, key: run.key.externalId, provider: run.key.provider, attempts: run.attempts };
      }
      @Post('hook')
      @Idempotent()
      hook(@IdempotencyContext() run: RequestIdempotency | undefined) {
        return { provider: run?.key.provider };
      }
    }
    @Module({
      imports: [
        IdempotencyModule.forRootAsync({
          imports: [StoreModule],
          inject: [STORE],
          useFactory: async (injected: InMemoryStore) => ({ store: injected, provider: 'p', key }),
        }),
      ],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const gh = await request(server).post('/github').set('x-github-delivery', 'd-1').send({});
    expect(gh.body).toEqual({ id: 'd-1', key: 'd-1', provider: 'github', attempts: 1 });
    expect(await receipt(store, 'd-1', 'github')).toMatchObject({
      status: 'completed',
    });
    const hook = await request(server).post('/hook').set('x-event-id', 'd-1').send({});
    expect(hook.body).toEqual({ provider: 'p' });
    expect(
      (await request(server).post('/github').set('x-github-delivery', 'd-1').send({})).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
  });

  it('transactional mode on SQLite: the route writes through the transaction from @IdempotencyContext(), committed with the receipt; a throw rolls it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-nest-'));
    const file = join(dir, 'app.db');
    const storeDb = new Database(file);
    const db = new Database(file);
    for (const conn of [storeDb, db]) conn.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE ledger (id TEXT PRIMARY KEY)');
    await Schema.createTable(storeDb);
    closing.push(async () => {
      db.close();
      storeDb.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const LEDGER = Symbol('ledger');
    @Injectable()
    class Ledger {
      constructor(@Inject(LEDGER) readonly name: string) {}
      write(tx: Database.Database, id: string, fail: boolean) {
        tx.prepare(`INSERT INTO ${this.name} (id) VALUES (?)`).run(id);
        if (fail) throw new Error('after the write');
      }
    }
    let calls = 0;
    @Controller()
    class Hooks {
      constructor(private readonly ledger: Ledger) {}
      @Post('hook')
      @HttpCode(200)
      @Idempotent({ transactional: true })
      hook(@IdempotencyContext() run: RequestIdempotency<Database.Database>) {
        calls++;
        this.ledger.write(run.transaction!, run.key.externalId, calls === 1);
        return { written: run.key.externalId };
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store: new SqlStore(storeDb), provider: 'p', key })],
      providers: [Ledger, { provide: LEDGER, useValue: 'ledger' }],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const failed = await request(server).post('/hook').set('x-event-id', 't1').send({});
    expect(failed.status).toBe(500);
    expect(db.prepare('SELECT count(*) AS n FROM ledger').get()).toEqual({ n: 0 });
    const ok = await request(server).post('/hook').set('x-event-id', 't1').send({});
    expect([ok.status, ok.body]).toEqual([200, { written: 't1' }]);
    expect(db.prepare('SELECT id FROM ledger').all()).toEqual([{ id: 't1' }]);
    const replay = await request(server).post('/hook').set('x-event-id', 't1').send({});
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(calls).toBe(2);
  });

  it('a method that answers through @Res() itself is held until the receipt is written, then replayed', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    @Controller()
    class Hooks {
      @Post('hook')
      @Idempotent()
      hook(@Res() res: { status(code: number): unknown; code?(code: number): unknown }) {
        calls++;
        const body = JSON.stringify({ call: calls });
        const reply = res as unknown as {
          code?(n: number): { header(n: string, v: string): { send(b: string): void } };
          status(n: number): { type(t: string): { send(b: string): void } };
        };
        if (reply.code) reply.code(202).header('content-type', 'application/json').send(body);
        else reply.status(202).type('application/json').send(body);
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store, provider: 'p', key })],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const first = await request(server).post('/hook').set('x-event-id', 'r1').send({});
    expect([first.status, first.body]).toEqual([202, { call: 1 }]);
    const again = await request(server).post('/hook').set('x-event-id', 'r1').send({});
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([
      202,
      'true',
      { call: 1 },
    ]);
    expect(calls).toBe(1);
  });

  it('a route preset over the module options: the GitHub signature is checked on the raw bytes Nest kept (rawBody: true)', async () => {
    const store = new InMemoryStore();
    const secret = 'nest secret';
    let calls = 0;
    @Controller()
    class Hooks {
      @Post('github')
      @HttpCode(200)
      @Idempotent({ preset: providers.github({ secret }) })
      github(@Body() event: { action: string }) {
        return { action: event.action, call: ++calls };
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store, provider: 'p', key })],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const body = '{"action":  "opened"}';
    const send = (signature: string) =>
      request(server)
        .post('/github')
        .set('content-type', 'application/json')
        .set('x-github-delivery', 'gh-1')
        .set('x-hub-signature-256', signature)
        .send(body);
    const signed = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    expect((await send('sha256=00')).status).toBe(401);
    expect(await receipt(store, 'gh-1', 'github')).toBeNull();
    const first = await send(signed);
    expect([first.status, first.body]).toEqual([200, { action: 'opened', call: 1 }]);
    const again = await send(signed);
    expect([again.headers['idempotent-replayed'], again.body]).toEqual([
      'true',
      { action: 'opened', call: 1 },
    ]);
    expect(calls).toBe(1);
  });

  it('decorators below @Idempotent() keep working (their metadata is carried over to the wrapper); without IdempotencyModule the start fails', async () => {
    const store = new InMemoryStore();
    @Controller()
    class Hooks {
      @Idempotent()
      @Post('hook')
      @HttpCode(202)
      @Header('x-handled-by', 'hooks')
      hook(@Body() body: { n: number }, @Headers('x-event-id') id: string) {
        return { n: body.n, id };
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store, provider: 'p', key })],
      controllers: [Hooks],
    })
    class App {}
    const { server } = await serve(App);
    const first = await request(server).post('/hook').set('x-event-id', 'o1').send({ n: 3 });
    expect([first.status, first.headers['x-handled-by'], first.body]).toEqual([
      202,
      'hooks',
      { n: 3, id: 'o1' },
    ]);
    const again = await request(server).post('/hook').set('x-event-id', 'o1').send({ n: 3 });
    expect([
      again.status,
      again.headers['x-handled-by'],
      again.headers['idempotent-replayed'],
    ]).toEqual([202, 'hooks', 'true']);

    @Module({ controllers: [Hooks] })
    class WithoutModule {}
    await expect(startNest(platform, WithoutModule)).rejects.toThrow(/IdempotencyRegistry/);
  });

  it('a route option that is invalid fails app.init() with a ConfigError naming it', async () => {
    @Controller()
    class Hooks {
      @Post('hook')
      @Idempotent({ maxResponseBytes: -1 })
      hook() {
        return {};
      }
    }
    @Module({
      imports: [IdempotencyModule.forRoot({ store: new InMemoryStore(), provider: 'p', key })],
      controllers: [Hooks],
    })
    class App {}
    const started = startNest(platform, App);
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toMatchObject({ option: 'maxResponseBytes' });
  });
});
