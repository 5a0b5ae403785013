/**
 * Every package under packages/ has a role, and each role has a fence: the packages (by name) its
 * sources may import. A new package fails here until it is given a role, so the boundaries cover
 * every package, not the ones someone remembered. The finer rules of some roles (what an adapter or
 * a queue bridge may take from core, core's own purity, the dashboard's mounts) are in
 * packages/core/test/boundaries.test.ts; this file is the table of all of them.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

type Role =
  | 'core'
  | 'adapter'
  | 'queue bridge'
  | 'store'
  | 'presets'
  | 'telemetry'
  | 'operator tool'
  | 'test kit';

/** Each package's role. A package missing here fails the first test below. */
const ROLES: Record<string, Role> = {
  core: 'core',
  express: 'adapter',
  fastify: 'adapter',
  koa: 'adapter',
  nestjs: 'adapter',
  hono: 'adapter',
  fetch: 'adapter',
  lambda: 'adapter',
  'pg-boss': 'queue bridge',
  bullmq: 'queue bridge',
  sql: 'store',
  redis: 'store',
  dynamodb: 'store',
  providers: 'presets',
  opentelemetry: 'telemetry',
  cli: 'operator tool',
  dashboard: 'operator tool',
  'adapter-conformance': 'test kit',
  reliability: 'test kit',
};

/** Our own packages each role may import (core's public entry points are open to all). */
const OURS: Record<Role, readonly string[]> = {
  core: [],
  adapter: [],
  'queue bridge': [],
  store: [],
  presets: [],
  telemetry: [],
  'operator tool': ['sql', 'providers'],
  'test kit': ['*'],
};

/**
 * Third-party packages each role may import at run time: the framework of an adapter, the
 * driver of a store, the queue of a bridge. Presets import none (an SDK's types only, below).
 */
const THIRD_PARTY: Record<Role, RegExp> = {
  core: /^$/,
  adapter:
    /^(express|fastify|fastify-plugin|koa|hono|@nestjs\/(common|core)|rxjs|aws-lambda|@types\/aws-lambda)$/,
  'queue bridge': /^(pg-boss|bullmq)$/,
  store:
    /^(knex|pg|mysql2|better-sqlite3|postgres|drizzle-orm|kysely|ioredis|redis|@redis\/client|@aws-sdk\/[\w-]+)$/,
  presets: /^$/,
  telemetry: /^@opentelemetry\/api$/,
  'operator tool': /^(commander|express|fastify|koa|hono|pg|mysql2|better-sqlite3)$/,
  'test kit': /./,
};

/** The provider SDKs the presets package names as optional peers: the SDKs of its typed events. */
const PRESET_SDKS = Object.keys(
  (
    JSON.parse(readFileSync(join(root, 'packages', 'providers', 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    }
  ).peerDependencies,
).filter((name) => !name.startsWith('@webhook-idempotency/'));
const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Packages whose types (only) a role may name: the providers' SDKs for the typed events. */
const TYPES_ONLY: Partial<Record<Role, RegExp>> = {
  presets: new RegExp(
    `^(${[...PRESET_SDKS.map(escaped), '@octokit\\/[\\w-]+', '@paddle\\/[\\w-]+', 'svix', 'standardwebhooks'].join('|')})$`,
  ),
};

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

interface Import {
  spec: string;
  typeOnly: boolean;
}

/** The bare imports of a file (comments left out), each with whether only types are taken. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const statements = text.matchAll(
    /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g,
  );
  return [...statements].map((m) => {
    const spec = m[4] ?? m[5] ?? m[6] ?? m[7]!;
    const allTypes = /^\{([^}]*)\}$/.test((m[3] ?? '').trim())
      ? (m[3] ?? '')
          .replace(/[{}]/g, '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .every((name) => name.startsWith('type '))
      : false;
    return { spec, typeOnly: Boolean(m[2]) || allTypes };
  });
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

const packages = readdirSync(join(root, 'packages')).filter((name) =>
  existsSync(join(root, 'packages', name, 'package.json')),
);

describe('every package has a role, and each role a fence', () => {
  it('names a role for every package under packages/', () => {
    expect(packages.length).toBeGreaterThan(15);
    expect(packages.filter((name) => !(name in ROLES))).toEqual([]);
  });

  it.each(packages.filter((name) => name in ROLES))(
    '%s imports only what its role allows',
    (name) => {
      const role = ROLES[name]!;
      const files = sources(join(root, 'packages', name, 'src'));
      expect(files.length).toBeGreaterThan(0);
      const outside: string[] = [];
      for (const file of files) {
        for (const { spec, typeOnly } of importsOf(file)) {
          if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('bun:')) continue;
          const where = `${relative(root, file)} -> ${spec}`;
          if (spec.startsWith('@webhook-idempotency/')) {
            const target = spec.split('/')[1]!;
            if (target === name) continue;
            if (target === 'core' && !spec.includes('/src')) continue;
            if (OURS[role].includes('*') || OURS[role].includes(target)) continue;
            outside.push(where);
            continue;
          }
          const pkg = packageOf(spec);
          if (THIRD_PARTY[role].test(pkg)) continue;
          if (typeOnly && TYPES_ONLY[role]?.test(pkg)) continue;
          outside.push(`${where}${TYPES_ONLY[role]?.test(pkg) ? ' (types only, please)' : ''}`);
        }
      }
      expect(outside).toEqual([]);
    },
  );

  it('the fence can fail: a value import of an SDK from the presets is caught', () => {
    // The parser the fence relies on tells a type-only import from a value import.
    const probe = join(root, '.tmp', 'package-roles-probe.ts');
    mkdirSync(join(root, '.tmp'), { recursive: true });
    writeFileSync(
      probe,
      "import type Stripe from 'stripe';\nimport { type A, type B } from 'resend';\nimport { C } from 'svix';\nexport * from 'hono';\n",
    );
    try {
      expect(importsOf(probe)).toEqual([
        { spec: 'stripe', typeOnly: true },
        { spec: 'resend', typeOnly: true },
        { spec: 'svix', typeOnly: false },
        { spec: 'hono', typeOnly: false },
      ]);
    } finally {
      rmSync(probe, { force: true });
    }
  });
});
