/**
 * The architecture's boundaries, checked on the source text: core knows no framework or driver,
 * adapters know no store and reach core only through its public entry, and each product has its
 * own entry point: the guard at core's root, the inbox at `/inbox`, the outbox at `/outbox`,
 * adapter and bridge authors' names at `/adapter`, the presets in `@webhook-idempotency/providers`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every package's source files. */
const packageSources = () =>
  readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name, 'src'))
    .filter((dir) => existsSync(dir))
    .flatMap(sources);

/** The source files of the packages users install (every package not marked private). */
const publishedSources = () =>
  readdirSync(join(root, 'packages'))
    .filter((name) => {
      const manifest = join(root, 'packages', name, 'package.json');
      return existsSync(manifest) && !JSON.parse(readFileSync(manifest, 'utf8')).private;
    })
    .map((name) => join(root, 'packages', name, 'src'))
    .filter((dir) => existsSync(dir))
    .flatMap(sources);

/** Every function with a body in `file` (declarations, methods, arrows), with its length in lines, comments inside included. */
function functionLengths(file: string): { at: string; lines: number }[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: { at: string; lines: number }[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(source));
      found.push({
        at: `${relative(root, file)}:${first + 1}`,
        lines: lineOf(node.end) - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The source files `file` imports by relative path, `import type` and re-exports included. */
const localImportsOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
      .matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g),
  ].flatMap((m) => {
    const base = join(dirname(file), m[1]!).replace(/\.js$/, '');
    return [`${base}.ts`, join(base, 'index.ts')].filter((candidate) => existsSync(candidate));
  });

/** The cycles of a directed graph, each as the path that closes it. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The import cycles among `files`, each as the path that closes it. */
const importCycles = (files: string[]) =>
  cyclesOf(new Map(files.map((file) => [file, localImportsOf(file)]))).map((cycle) =>
    cycle.map((file) => relative(root, file)).join(' -> '),
  );

type DependencyField =
  | 'dependencies'
  | 'devDependencies'
  | 'peerDependencies'
  | 'optionalDependencies';
type Manifest = { name: string } & Partial<Record<DependencyField, Record<string, string>>>;

/** The manifest of every workspace package under packages/. */
const manifests = (): Manifest[] =>
  readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Manifest);

/** The workspace packages each package takes through `fields`, as a graph of package names. */
function workspaceGraph(fields: readonly DependencyField[]): Map<string, string[]> {
  const all = manifests();
  const names = new Set(all.map((pkg) => pkg.name));
  return new Map(
    all.map((pkg) => [
      pkg.name,
      fields.flatMap((field) => Object.keys(pkg[field] ?? {})).filter((name) => names.has(name)),
    ]),
  );
}

const importsOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]([^'"]+)['"]/g,
    ),
  ].map((m) => m[1]!);

/** As {@link importsOf} with side-effect imports (`import 'x'`), leaving out the examples in doc comments. */
const codeImportsOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8')
      .replace(/^\s*(\/\/|\/?\*).*$/gm, '')
      .matchAll(/(?:from\s+|import\s*\(\s*|import\s+|require\s*\(\s*)['"]([^'"]+)['"]/g),
  ].map((m) => m[1]!);

/** What an adapter may take from core: the engine and its records, body helpers, option merging, config errors. No policy. */
const ADAPTER_SURFACE = new Set([
  'ConfigError',
  'HttpRequest',
  'HttpResponseRecord',
  'IdempotencyOptions',
  'RequestIdempotency',
  'createEngine',
  'Engine',
  'Decision',
  'PendingRun',
  'mergeOptions',
  'toRawBody',
  'collectBody',
  'needsCollecting',
  // Request bodies under a byte limit (the adapters that read the body themselves).
  'DEFAULT_MAX_REQUEST_BYTES',
  'REQUEST_TOO_LARGE',
  'readRequestBody',
  'readStreamUpTo',
  'requestTooLarge',
  'resolveMaxRequestBytes',
  'responseNotCaptured',
  // The shared transports, so that an adapter only translates: what `run.finish`
  // takes and the one rule for which answers are recorded; the held response over node:http
  // (Express, NestJS, and Koa's answer at the deadline); the Web-standard Request/Response layer
  // (fetch, Hono).
  'CapturedResponse',
  'isRecordedStatus',
  'holdResponse',
  'answerNow',
  'abortHeld',
  'sendRecord',
  'readWebRequest',
  'captureWebResponse',
  'CapturedWebResponse',
  'toWebResponse',
  // An adapter with a shutdown hook writes its stores' ignored-event counts there (Fastify's onClose).
  'flushIgnored',
  // A 413 sent before the body was read: the Node body read that reads the rest off within
  // core's bound (Koa's rawBodyParser).
  'discardRest',
  'readNodeBody',
  // Inbox mode: the acknowledging endpoint's engine and its options.
  'createInboxEngine',
  'createFallbackInboxEngine',
  'InboxOptions',
  // An adapter that bounds the run itself (Lambda: the function's remaining time): the deadline's
  // error and the engine's answer for it.
  'HandlerTimeout',
  'errorAnswer',
  // An adapter whose platform hosts the worker too (a scheduled Lambda function drains the inbox).
  'createInboxWorker',
  'InboxWorkerOptions',
]);

/** The names `file` imports from `@webhook-idempotency/core` and its entry points. */
const coreNamesOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]@webhook-idempotency\/core(?:\/[a-z]+)?['"]/g,
    ),
  ].flatMap((m) =>
    m[1]!
      .split(',')
      .map((name) =>
        name
          .replace(/^\s*type\s+/, '')
          .replace(/\s+as\s+.*$/, '')
          .trim(),
      )
      .filter(Boolean),
  );

const ADAPTERS = ['express', 'fastify', 'koa', 'fetch', 'hono', 'nestjs', 'lambda'];

/** What a queue bridge may take from core: the relay and the consumer, their records, config errors. */
const BRIDGE_SURFACE = new Set([
  'ConfigError',
  'createInboxRelay',
  'InboxRelay',
  'InboxRelayOptions',
  'HandoffState',
  'jobIdOf',
  'QueuedDelivery',
  'GivenQueuedDelivery',
  'leaseCount',
  'createInboxConsumer',
  'InboxConsumer',
  'InboxConsumerOptions',
  'ConsumeOutcome',
  'queuedDeliveryOf',
  'InvalidJobData',
]);
const BRIDGES = ['pg-boss', 'bullmq'];

/**
 * The names an entry file re-exports (`export { a, type B } from`, `export * as c from`, and
 * through `export * from './module'` every name that module exports or declares).
 */
const exportedNames = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  const listed = [...text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((name) =>
        name
          .replace(/^\s*type\s+/, '')
          .replace(/^.*\s+as\s+/, '')
          .trim(),
      )
      .filter(Boolean),
  );
  const namespaces = [...text.matchAll(/export\s+\*\s+as\s+(\w+)/g)].map((m) => m[1]!);
  const wholeModules = [
    ...text.matchAll(/export\s+(?:type\s+)?\*\s+from\s+['"](\.[^'"]+)['"]/g),
  ].flatMap((m) => {
    const module = join(dirname(file), `${m[1]}.ts`);
    const declared = readFileSync(module, 'utf8').matchAll(
      /^export\s+(?:abstract\s+|async\s+)*(?:function|const|let|class|interface|type|enum)\s+(\w+)/gm,
    );
    return [...exportedNames(module), ...[...declared].map((d) => d[1]!)];
  });
  return [...listed, ...namespaces, ...wholeModules];
};
const coreEntry = (path: string) => join(root, 'packages/core/src', path);

describe('package boundaries', () => {
  it('core imports no framework, driver or query builder, not even for types', () => {
    const banned =
      /^(express|fastify|fastify-plugin|koa|@koa\/.*|hono|@hono\/.*|@nestjs\/.*|rxjs|knex|pg|mysql2|better-sqlite3)(\/|$)/;
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

  it.each(ADAPTERS)('the %s adapter imports no store and no deep core path', (adapter) => {
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
  });

  it.each(ADAPTERS)(
    'the %s adapter takes only the engine surface from core: no guard, key, fingerprint, status table or preset of its own',
    (adapter) => {
      const names = sources(join(root, 'packages', adapter, 'src')).flatMap(coreNamesOf);
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((name) => !ADAPTER_SURFACE.has(name))).toEqual([]);
    },
  );

  it.each(BRIDGES)(
    'the %s bridge imports no store, driver or guard: only the relay and consumer surface of core',
    (bridge) => {
      let files: string[] = [];
      try {
        files = sources(join(root, 'packages', bridge, 'src'));
      } catch {
        // The bridge package has no sources yet.
      }
      for (const file of files)
        for (const spec of importsOf(file)) {
          expect(spec).not.toMatch(/^@webhook-idempotency\/(sql|core\/src)/);
          expect(spec).not.toMatch(/^(knex|pg|mysql2|better-sqlite3)$/);
        }
      const names = files.flatMap(coreNamesOf);
      expect(names.filter((name) => !BRIDGE_SURFACE.has(name))).toEqual([]);
    },
  );

  it("the dashboard's core knows no framework: only its mounts import one, each its own", () => {
    const dir = join(root, 'packages/dashboard/src');
    const framework = /^(express|fastify|koa|hono)(\/|$)/;
    const files = sources(dir);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const name = relative(dir, file);
      for (const spec of importsOf(file).filter((s) => framework.test(s)))
        expect(`${name} -> ${spec}`).toBe(`mounts/${spec.split('/')[0]}.ts -> ${spec}`);
    }
  });

  it('no package imports in a cycle, not even for types', () => {
    const files = packageSources();
    const edges = files.flatMap(localImportsOf);
    expect(edges.length).toBeGreaterThan(files.length);
    expect(importCycles(files)).toEqual([]);
  });

  it('no package depends on itself through what it ships (dependencies, peers): the graph `pnpm run build` sorts on (--filter-prod)', () => {
    const shipped = workspaceGraph(['dependencies', 'peerDependencies', 'optionalDependencies']);
    expect(shipped.size).toBeGreaterThan(10);
    expect(cyclesOf(shipped).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it("the one cycle through devDependencies is the conformance registry's: it runs every adapter, and each adapter's tests take it", () => {
    const registry = '@webhook-idempotency/adapter-conformance';
    const adapters = ADAPTERS.map((adapter) => `@webhook-idempotency/${adapter}`);
    const graph = workspaceGraph(['dependencies', 'devDependencies', 'peerDependencies']);
    expect(graph.get(registry)).toEqual(expect.arrayContaining(adapters));
    for (const adapter of adapters) expect(graph.get(adapter)).toContain(registry);
    const withoutTheRegistry = new Map(
      [...graph].map(([from, to]) => [
        from,
        adapters.includes(from) ? to.filter((name) => name !== registry) : to,
      ]),
    );
    expect(cyclesOf(withoutTheRegistry).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it("no package's or example's tests import another one's files by relative path: by name, through its exports", () => {
    const folders = ['packages', 'examples'].flatMap((group) =>
      readdirSync(join(root, group)).map((name) => join(root, group, name)),
    );
    const crossing = folders
      .filter((folder) => existsSync(join(folder, 'test')))
      .flatMap((folder) =>
        sources(join(folder, 'test')).flatMap((file) =>
          codeImportsOf(file)
            .filter((spec) => spec.startsWith('.'))
            .filter((spec) => relative(folder, join(dirname(file), spec)).startsWith('..'))
            .map((spec) => `${relative(root, file)} -> ${spec}`),
        ),
      );
    expect(crossing).toEqual([]);
  });

  it('adapter-conformance declares every package its sources import (the frameworks each registry entry runs on)', () => {
    const pkg = JSON.parse(
      readFileSync(join(root, 'packages/adapter-conformance/package.json'), 'utf8'),
    ) as Manifest;
    const names = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.devDependencies ?? {}),
    ];
    // A type-only module (`aws-lambda`) is declared by its `@types/` package.
    const declared = new Set([...names, ...names.map((name) => name.replace(/^@types\//, ''))]);
    const undeclared = sources(join(root, 'packages/adapter-conformance/src')).flatMap((file) =>
      codeImportsOf(file)
        // A runtime's own modules (Node's, and Bun's for the suite that runs inside Bun) are no package.
        .filter((spec) => !spec.startsWith('.') && !/^(node|bun):/.test(spec) && spec !== 'bun')
        .map((spec) =>
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        )
        .filter((name) => !declared.has(name))
        .map((name) => `${relative(root, file)} -> ${name}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('no source file is over 350 lines: a file one reads top to bottom', () => {
    const long = packageSources()
      .map((file) => ({
        file: relative(root, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ lines }) => lines > 350);
    expect(long).toEqual([]);
  });

  it("no published package's function is over 80 lines, and at most 10 are over 60: a function one reads at once", () => {
    const lengths = publishedSources().flatMap(functionLengths);
    expect(lengths.filter(({ lines }) => lines > 80)).toEqual([]);
    expect(lengths.filter(({ lines }) => lines > 60).length).toBeLessThanOrEqual(10);
  });

  describe('entry points by product', () => {
    const rootNames = exportedNames(coreEntry('index.ts'));
    const inboxNames = exportedNames(coreEntry('inbox/index.ts'));
    const outboxNames = exportedNames(coreEntry('outbox/index.ts'));
    const adapterNames = exportedNames(coreEntry('adapter.ts'));

    it("core's root is the guard an application writes against: at most 50 names, none of the inbox, the outbox, a bridge or a preset", () => {
      expect(rootNames.length).toBeGreaterThan(30);
      expect(rootNames.length).toBeLessThanOrEqual(50);
      expect(new Set(rootNames).size).toBe(rootNames.length);
      const elsewhere = [...inboxNames, ...outboxNames, ...BRIDGE_SURFACE].filter(
        (name) => name !== 'ConfigError',
      );
      expect(rootNames.filter((name) => elsewhere.includes(name))).toEqual([]);
      expect(rootNames).not.toContain('providers');
      expect(rootNames).toEqual(
        expect.arrayContaining([
          'IdempotencyGuard',
          'InMemoryStore',
          'RequestKey',
          'ConfigError',
          'Store',
        ]),
      );
    });

    it('the inbox has its own entry point, with its in-memory store; bridge-author names are in /adapter', () => {
      expect(inboxNames).toEqual(
        expect.arrayContaining([
          'createInboxWorker',
          'InboxStore',
          'InMemoryInbox',
          'DeliveryStatus',
        ]),
      );
      for (const name of BRIDGE_SURFACE)
        if (name !== 'ConfigError') expect(adapterNames).toContain(name);
      expect(inboxNames.filter((name) => BRIDGE_SURFACE.has(name))).toEqual([]);
      expect(inboxNames.filter((name) => adapterNames.includes(name))).toEqual([]);
    });

    it('the outbox has its own entry point, none of its names at the root, the inbox or /adapter; it loads no mail or HTTP library', () => {
      expect(outboxNames).toEqual(
        expect.arrayContaining([
          'Outbox',
          'createOutboxDispatcher',
          'httpSender',
          'emailSender',
          'PermanentSendFailure',
          'OutboxSender',
        ]),
      );
      expect(new Set(outboxNames).size).toBe(outboxNames.length);
      for (const names of [rootNames, inboxNames, adapterNames])
        expect(names.filter((name) => outboxNames.includes(name))).toEqual([]);
      // The email sender takes a transport by its shape; the HTTP sender, the platform's fetch.
      const outside = sources(coreEntry('outbox')).flatMap((file) =>
        codeImportsOf(file)
          .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:'))
          .map((spec) => `${relative(root, file)} -> ${spec}`),
      );
      expect(outside).toEqual([]);
    });

    it('core knows no preset, and the presets reach core only through its public entry points', () => {
      for (const file of sources(join(root, 'packages/core/src')))
        for (const spec of importsOf(file))
          expect(`${relative(root, file)} -> ${spec}`).not.toMatch(
            /-> @webhook-idempotency\/providers/,
          );
      const providerFiles = sources(join(root, 'packages/providers/src'));
      expect(providerFiles.length).toBeGreaterThan(10);
      // The typed event maps (src/types/) name the providers' SDK types: `import type` only,
      // fenced in tests/architecture/package-roles.test.ts; nothing of an SDK is loaded.
      for (const file of providerFiles.filter((f) => !f.includes(`${join('src', 'types')}/`)))
        for (const spec of codeImportsOf(file).filter((s) => !s.startsWith('.')))
          expect(`${relative(root, file)} -> ${spec}`).toMatch(
            / -> (node:crypto|@webhook-idempotency\/core(\/adapter)?)$/,
          );
    });
  });
});
