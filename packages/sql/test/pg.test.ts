/** SqlStore over a raw pg Pool: the whole store contract. */
import pg from 'pg';
import { pgDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (pg Pool)', async () => {
  const db = new pg.Pool({ connectionString: await pgDatabase('wi_pg'), max: 10 });
  return { db, close: () => db.end() };
});

// The handle is a pg PoolClient inside BEGIN.
guardCases(db, (client, id) => client.query('INSERT INTO orders (id) VALUES ($1)', [id]));
