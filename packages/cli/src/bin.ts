#!/usr/bin/env node
/** @module The `webhook-idempotency` executable: runs the command and exits with its code. */
import { escapeControls } from './output';
import { run } from './run';

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`webhook-idempotency: ${escapeControls(String(error))}\n`);
    process.exitCode = 1;
  },
);
