/**
 * The repository says its design in its own documents (ARCHITECTURE.md, CONTRIBUTING.md, docs/):
 * no tracked file cites a design, provider-research, peer-review, style or toolchain note kept
 * outside it, whose sections a reader of the repository cannot open.
 */
import { execFileSync } from 'node:child_process';
import { repoRoot } from '@webhook-idempotency/test-support/node-lines';

// Spelt in parts, so this file does not find itself.
const NOTES = ['DESIGN', 'PROVIDERS', 'PEERS', 'STYLE', 'TOOLCHAIN'].map((name) => `${name}.md`);
const SHARED = ['..', 'shared'].join('/');

it('no tracked file cites a note kept outside the repository', () => {
  const pattern = [...NOTES.map((note) => note.replace('.', '\\.')), SHARED.replace(/\./g, '\\.')];
  let found = '';
  try {
    found = execFileSync('git', ['grep', '-n', '-E', pattern.join('|')], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
  } catch (error) {
    // git grep exits 1 when nothing matches.
    if ((error as { status?: number }).status !== 1) throw error;
  }
  expect(found.split('\n').filter(Boolean)).toEqual([]);
});
