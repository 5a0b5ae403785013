/** @module MySQL's and MariaDB's row of the dialect table: every fragment their statements are built from. */
import type { DialectSpec } from './spec';

const MYSQL_EPOCH_MS = (column: string) =>
  `(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${column}) DIV 1000)`;

/** MySQL ≥ 5.7 and MariaDB ≥ 10.2 (tested on MariaDB 10.11). */
export const mysql: DialectSpec = {
  name: 'mysql',
  quote: (identifier) => `\`${identifier}\``,
  // VARBINARY, not VARCHAR: every utf8mb4 *_bin collation of MariaDB and MySQL 5.7 is PAD SPACE,
  // so 'x' and 'x ' would collide in the unique index. Bytes compare exactly; 640 bytes is 160
  // four-byte characters, the RequestKey limit.
  types: { key: 'VARBINARY(640)', response: 'MEDIUMTEXT', timestamp: 'DATETIME(3)' },
  tableOptions: ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
  inlineIndexes: true,
  // DATETIME has no time zone: store UTC, so the session's time_zone never matters.
  now: 'UTC_TIMESTAMP(3)',
  nowMs: MYSQL_EPOCH_MS('UTC_TIMESTAMP(3)'),
  toMs: MYSQL_EPOCH_MS,
  minusMs: (expression) => `(${expression} - INTERVAL (? * 1000) MICROSECOND)`,
  // A DATETIME in UTC, as the columns hold (FROM_UNIXTIME would read the session's time_zone).
  atMs: "(CAST('1970-01-01 00:00:00' AS DATETIME(3)) + INTERVAL (? * 1000) MICROSECOND)",
  timeText: (column) => `DATE_FORMAT(${column}, '%Y-%m-%dT%H:%i:%s.%fZ')`,
  // A DATETIME literal of UTC, as the columns hold: no zone suffix (MariaDB reads none).
  atText: 'CAST(? AS DATETIME(6))',
  bindTimeText: (text) => text.replace('T', ' ').replace('Z', ''),
  indexExists:
    'SELECT 1 AS present FROM information_schema.STATISTICS ' +
    'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1',
  bucketOf: (expression) => `FLOOR(${expression} / ?)`,
  // A plain INSERT: its duplicate-key error is the "lost" signal. INSERT IGNORE would also turn
  // other errors (a value too long in strict mode) into warnings.
  onConflictDoNothing: '',
  // VALUES(column): the row the INSERT would have written (deprecated by MySQL 8.0.20 for an
  // alias, which MariaDB does not read; both still run it).
  addOnConflict: (_table, _keys, column) =>
    ` ON DUPLICATE KEY UPDATE ${column} = ${column} + VALUES(${column})`,
  returning: false,
  // UTC_TIMESTAMP(3) is one value for the whole statement: the claimed_at the row gets.
  attemptsReturningClaimTime: `(LAST_INSERT_ID(${MYSQL_EPOCH_MS('UTC_TIMESTAMP(3)')}) * 0 + 1)`,
  // A single-table DELETE takes each row's lock, then evaluates its whole WHERE on the row's
  // latest committed version (a locking read), so a row changed meanwhile is judged as it is now.
  deleteChunk: (table, where) => ({
    sql: `DELETE FROM ${table} WHERE ${where} LIMIT ?`,
    params: (whereParams, chunkSize) => [...whereParams, chunkSize],
  }),
  duplicateKeyCodes: new Set(['ER_DUP_ENTRY', 1062]),
  missingTable: { codes: new Set(['ER_NO_SUCH_TABLE', 1146]) },
  // ER_LOCK_DEADLOCK (SQLSTATE 40001). A lock wait timeout (1205) is not one: it ran its bound.
  deadlockCodes: new Set(['ER_LOCK_DEADLOCK', 1213, '40001']),
  singleWriter: false,
  // The session's row-lock wait, in whole seconds (the server's unit).
  transactionBounds: (timeoutMs) => [
    `SET SESSION innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(timeoutMs / 1000))}`,
  ],
  placeholders: (sql) => sql,
  inbox: {
    idColumn: 'id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY',
    bytes: 'LONGBLOB',
    text: 'MEDIUMTEXT',
    plusMs: (expression) => `(${expression} + INTERVAL (? * 1000) MICROSECOND)`,
    // SKIP LOCKED: MySQL 8.0.1+, MariaDB 10.6+. Older servers reject it as a syntax error.
    lockClause: (skipLocked) => (skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE'),
    // For this statement only (the pooled connection's session is the application's): MariaDB
    // runs the `/*M!` comment, `SET STATEMENT … FOR`, and ignores the hint; MySQL ignores the
    // comment and reads the hint. Metadata locks (LOCK TABLES, ALTER) wait `lock_wait_timeout`,
    // row locks `innodb_lock_wait_timeout`, both in whole seconds.
    boundLease: (select, ms) => {
      const s = Math.max(1, Math.ceil(ms / 1000));
      return {
        setup: null,
        select:
          `/*M!SET STATEMENT max_statement_time=${s}, lock_wait_timeout=${s}, innodb_lock_wait_timeout=${s} FOR*/ ` +
          select.replace(
            /^SELECT /,
            `SELECT /*+ SET_VAR(lock_wait_timeout=${s}) SET_VAR(innodb_lock_wait_timeout=${s}) */ `,
          ),
      };
    },
    // No partial indexes: the optimizer is told to walk (finished_at, id) from NULL, in id order.
    unfinished: { partialIndex: false, hint: ({ finished }) => ` FORCE INDEX (${finished})` },
  },
};
