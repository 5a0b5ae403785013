/**
 * `pnpm docs:snippets`: copies every snippet region into the Markdown blocks that show it (the
 * docs test then passes). Run after changing a region of examples/snippets or reformatting.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncDocument } from './check-docs';
import { documentPaths } from './documents';

const root = join(__dirname, '..', '..', '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
let changed = 0;
for (const file of documentPaths(root)) {
  const before = read(file);
  const after = syncDocument(before, read);
  if (after === before) continue;
  writeFileSync(join(root, file), after);
  changed++;
  console.log(`updated ${file}`);
}
console.log(`${changed} file(s) updated`);
