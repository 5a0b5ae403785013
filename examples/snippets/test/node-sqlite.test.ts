/**
 * docs/stores.md, node:sqlite: run twice on a real file. Collected on the Node lines that have
 * `node:sqlite` (jest.config.ts; test-support/run-node-lines.ts runs it on every other line).
 */
import { DatabaseSync } from 'node:sqlite';
import { nodeSqliteExample } from '../src/stores-node-sqlite';
import { sqliteFile } from './helpers/databases';

afterEach(() => {
  delete process.env.DATABASE_FILE;
});

it('node:sqlite: one message row for two deliveries', async () => {
  process.env.DATABASE_FILE = sqliteFile('snippets-node-sqlite');
  const setup = new DatabaseSync(process.env.DATABASE_FILE);
  setup.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const first = await nodeSqliteExample();
  const second = await nodeSqliteExample();
  try {
    expect([first.isReplay, second.isReplay]).toEqual([false, true]);
    expect(setup.prepare('SELECT id, text FROM messages').all()).toEqual([
      { id: 123456790, text: '/help' },
    ]);
  } finally {
    first.db.close();
    second.db.close();
    setup.close();
  }
});
