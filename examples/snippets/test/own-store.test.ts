/**
 * docs/stores.md, "Writing your own store": the conformance suite run the way a store author runs
 * it — here on a SqlStore over SQLite (a database clock) and on the InMemoryStore (the caller's clock).
 */
// #region conformance
import Database from 'better-sqlite3';
import { runStoreConformance } from '@webhook-idempotency/core/testing';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion conformance
// #region conformance-memory
import { InMemoryStore } from '@webhook-idempotency/core';
// #endregion conformance-memory

// #region conformance
runStoreConformance({
  name: 'SqlStore on SQLite',
  async makeStore() {
    const db = new Database(':memory:'); // a fresh, empty store for every case
    await Schema.createTable(db);
    return {
      store: new SqlStore(db),
      // The store takes "now" from the database, which cannot be faked: make `ms` pass by
      // moving every stored timestamp `ms` into the past instead.
      async advance(ms) {
        db.prepare(
          'UPDATE webhook_receipts SET claimed_at = claimed_at - ?, finished_at = finished_at - ?',
        ).run(ms, ms);
      },
      async close() {
        db.close();
      },
    };
  },
});
// #endregion conformance

// #region conformance-memory
// A store with a 'caller' clock (it uses the `now` passed to each call) needs no `advance`.
runStoreConformance({ name: 'InMemoryStore', makeStore: () => ({ store: new InMemoryStore() }) });
// #endregion conformance-memory
