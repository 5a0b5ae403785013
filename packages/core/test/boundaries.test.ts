/**
 * The architecture's boundaries, checked on the source text: core knows no framework or driver,
 * adapters know no store and reach core only through its public entry.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const importsOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]([^'"]+)['"]/g,
    ),
  ].map((m) => m[1]!);

describe('package boundaries', () => {
  it('core imports no framework, driver or query builder, not even for types', () => {
    const banned =
      /^(express|fastify|fastify-plugin|koa|@koa\/.*|@nestjs\/.*|rxjs|knex|pg|mysql2|better-sqlite3)(\/|$)/;
    for (const file of sources(join(root, 'packages/core/src'))) {
      for (const spec of importsOf(file))
        expect(`${relative(root, file)} -> ${spec}`).not.toMatch(
          new RegExp(` -> ${banned.source}`),
        );
    }
  });

  it('core has no runtime dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it.each(['express', 'fastify', 'koa', 'nestjs'])(
    'the %s adapter imports no store and no deep core path',
    (adapter) => {
      const dir = join(root, 'packages', adapter, 'src');
      let files: string[] = [];
      try {
        files = sources(dir);
      } catch {
        // The adapter package has no sources yet.
      }
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        for (const spec of importsOf(file)) {
          expect(spec).not.toMatch(/^@webhook-idempotency\/(sql|core\/src)/);
          expect(spec).not.toMatch(/^(knex|pg|mysql2|better-sqlite3)$/);
        }
        expect(
          `${relative(root, file)}: ${/\bStore\b/.test(text.replace(/^\s*(\/\/|\*).*$/gm, '')) ? 'mentions Store' : 'ok'}`,
        ).toMatch(/: ok$/);
      }
    },
  );
});
