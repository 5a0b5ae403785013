/** docs/guides/raw-body.md: the canonical JSON the fallback fingerprint hashes. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalExample } from '../src/raw-body';
import { readRegion } from './helpers/check-docs';

it('two spellings of one payload give the text shown in the comments', () => {
  const region = readRegion(
    readFileSync(join(__dirname, '..', 'src', 'raw-body.ts'), 'utf8'),
    'canonical',
  );
  const shown = [...region.matchAll(/\/\/ '([^']+)'/g)].map((m) => m[1]);
  expect(canonicalExample()).toEqual(shown);
});
