/** @module The name of a SQL dialect: its own module, so the executors and the public types can share it without importing each other. */

/** The SQL dialects the store speaks. `mysql` covers MySQL ≥ 5.7 and MariaDB ≥ 10.2 (tested on MariaDB 10.11). */
export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';
