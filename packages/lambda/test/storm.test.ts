/**
 * A Lambda storm: one webhook delivered many times at once, to several warm containers of one
 * function (each its own guarded handler and its own store client, as separate execution
 * environments have), on the run's PostgreSQL and on the DynamoDB store over dynalite and
 * DynamoDB Local. The handler runs once; every other invocation is answered the in-progress 409
 * with `Retry-After` or the replay of the one answer, byte for byte; afterwards every container
 * replays it.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { lambdaContext, v2Event } from '@webhook-idempotency/adapter-conformance/apps/lambda';
import type { Store } from '@webhook-idempotency/core';
import { DynamoDBStore, receiptsTable } from '@webhook-idempotency/dynamodb';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import pg from 'pg';
import { type LambdaHttpResult, withIdempotency } from '../src';

const CONTAINERS = 6;
const INVOCATIONS = 120;

interface Backend {
  /** A store for one container, and how to release it. */
  open(): Promise<{ store: Store<unknown>; close(): Promise<void> }>;
  teardown(): Promise<void>;
}

const event = (id: string) =>
  v2Event({
    method: 'POST',
    path: '/webhooks/stripe',
    headers: [
      ['content-type', 'application/json'],
      ['x-delivery', id],
    ],
    body: `{"id":"${id}","type":"invoice.paid"}`,
  });

/** Runs the storm on `backend`: resolves with every answer and the handler's run count. */
async function storm(backend: Backend) {
  const opened = await Promise.all(Array.from({ length: CONTAINERS }, () => backend.open()));
  let runs = 0;
  const handlers = opened.map(({ store }, container) =>
    withIdempotency(
      { store, provider: 'stripe', key: (request) => request.headers['x-delivery'] },
      async () => {
        runs++;
        // Long enough for the other invocations to arrive while the claim is held.
        await new Promise((resolve) => setTimeout(resolve, 150));
        return {
          statusCode: 200,
          headers: { 'content-type': 'application/json', 'x-container': String(container) },
          body: JSON.stringify({ booked: true, container }),
        };
      },
    ),
  );
  const id = `evt_${randomUUID()}`;
  try {
    const answers = await Promise.all(
      Array.from({ length: INVOCATIONS }, (_, i) =>
        handlers[i % CONTAINERS]!(event(id), lambdaContext()),
      ),
    );
    const after = await Promise.all(handlers.map((handler) => handler(event(id), lambdaContext())));
    return { answers, after, runs };
  } finally {
    await Promise.all(opened.map(({ close }) => close()));
    await backend.teardown();
  }
}

/**
 * Every answer of a storm is the one run's, its replay, the in-progress 409 or a store's 503
 * (a call that timed out on a loaded machine: fail closed, the handler not run), the last two
 * with `Retry-After`; the run was one, and afterwards every container replays it.
 */
function expectOnce(report: Awaited<ReturnType<typeof storm>>): void {
  const { answers, after, runs } = report;
  const ran = answers.filter((a) => a.statusCode === 200 && !isReplay(a));
  expect({ runs, ran: ran.length }).toEqual({ runs: 1, ran: 1 });
  const body = ran[0]!.body;
  const wrong = answers.filter((answer) => {
    if (answer === ran[0]) return false;
    if (answer.statusCode === 409 || answer.statusCode === 503)
      return answer.headers?.['retry-after'] === undefined;
    return !(answer.statusCode === 200 && isReplay(answer) && answer.body === body);
  });
  expect(wrong).toEqual([]);
  for (const answer of after)
    expect([answer.statusCode, isReplay(answer), answer.body]).toEqual([200, true, body]);
}

const isReplay = (answer: LambdaHttpResult) =>
  (answer.headers as Record<string, unknown> | undefined)?.['Idempotent-Replayed'] === 'true';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through jest, whose global setup starts it`);
  return value;
}

/** A fresh PostgreSQL database of the run's server (left to it), one pool per container. */
async function postgres(): Promise<Backend> {
  const name = `wi_lambda_storm_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: env('WI_PG_URL') });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(env('WI_PG_URL'));
  url.pathname = `/${name}`;
  const setup = new pg.Pool({ connectionString: url.toString(), max: 1 });
  await Schema.createTable(setup);
  await setup.end();
  return {
    async open() {
      const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
      return { store: new SqlStore(pool) as Store<unknown>, close: () => pool.end() };
    },
    // The database goes with the run's server.
    teardown: async () => undefined,
  };
}

/** A fresh receipts table on a DynamoDB-compatible server, one client per container. */
async function dynamo(urlVariable: string): Promise<Backend> {
  const client = () =>
    new DynamoDBClient({
      endpoint: env(urlVariable),
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  const admin = client();
  const table = `wi-lambda-storm-${randomUUID().slice(0, 8)}`;
  await admin.send(new CreateTableCommand(receiptsTable(table).create));
  await waitUntilTableExists(
    { client: admin, maxWaitTime: 30, minDelay: 0.05, maxDelay: 0.2 },
    { TableName: table },
  );
  return {
    async open() {
      const own = client();
      const store = new DynamoDBStore(own, { table, transactions: false }) as Store<unknown>;
      return { store, close: async () => own.destroy() };
    },
    async teardown() {
      await admin.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
      admin.destroy();
    },
  };
}

describe(`a Lambda storm: ${INVOCATIONS} concurrent invocations of one event over ${CONTAINERS} containers`, () => {
  it('on PostgreSQL: the handler runs once', async () => {
    expectOnce(await storm(await postgres()));
  });

  it('on DynamoDB (dynalite): the handler runs once', async () => {
    expectOnce(await storm(await dynamo('WI_DYNALITE_URL')));
  });

  it('on DynamoDB (DynamoDB Local): the handler runs once', async () => {
    expectOnce(await storm(await dynamo('WI_DYNAMODB_LOCAL_URL')));
  });
});
