/** @module `pnpm migrate`: creates the tables before the app serves its first webhook. */
import { migrate } from './db';

migrate().then(
  () => console.log('tables ready'),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
