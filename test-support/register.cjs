'use strict';
/**
 * @module The require hook the test run's Node children load TypeScript through:
 * `node -r @webhook-idempotency/test-support/register file.ts` (in a fork:
 * `execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')]`).
 *
 * It compiles a `.ts` file much as esbuild-register did (esbuild's `transformSync`, CommonJS, the
 * nearest tsconfig.json or jsconfig.json above the file as `tsconfigRaw`, an inline source map,
 * files under node_modules left to Node), with these differences: the target is the running Node
 * (esbuild-register left esbuild's default; the code of our sources is the same either way); only
 * `.ts` is hooked; no tsconfig `paths` and no `import.meta.url` shim (we use neither); and a
 * dependency that ships ES modules only is loaded by Node's own `require(esm)` (Node 20.19 and
 * later) instead of being compiled to CommonJS. It keeps what
 * esbuild wrote in a content-addressed cache on disk: every workspace package exports its
 * `src/index.ts`, so without the cache each of the run's ~hundred children compiled the same
 * sources again. A child whose files are all in the cache never loads esbuild at all.
 *
 * - The cache is `<repo>/.cache/ts-register` (the checkout's own, git-ignored), or
 *   `WI_TS_REGISTER_CACHE`. An entry's name is the SHA-256 of esbuild's version, the transform
 *   options (the file's path and its tsconfig among them) and the source text, so an edited
 *   source, another tsconfig or another esbuild is a new entry; nothing is ever invalidated or
 *   deleted (a few MB a full run; remove the folder to reclaim what old sources left, and the
 *   `*.tmp` files a child killed in the middle of a write leaves behind, which are never read).
 * - An entry is written to a file of its own and renamed into place, so dozens of children
 *   starting at once never read a half-written entry. It starts with a line holding the SHA-1 of
 *   the code after it: an entry that is unreadable or does not match is compiled again and
 *   replaced. A cache folder that cannot be written only costs the compile.
 * - `process.setSourceMapsEnabled(true)`: stack traces name the `.ts` file and line.
 * - `WI_TS_REGISTER_REPORT=1` writes a line to stderr for each file esbuild compiles (a miss),
 *   with why: the test of this hook observes hits and misses through it.
 *
 * Plain CommonJS, so Node loads it without compiling anything. Only `.ts` is hooked: the children
 * load no `.tsx`, `.mts`, `.cts` or ECMAScript-module `.js` of ours.
 */
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const FORMAT = 'ts-register-v1';
const CACHE =
  process.env.WI_TS_REGISTER_CACHE || path.join(__dirname, '..', '.cache', 'ts-register');
const REPORT = process.env.WI_TS_REGISTER_REPORT === '1';
const ESBUILD = require.resolve('esbuild');
// esbuild's package.json (its `main` is lib/main.js) names the version without loading esbuild.
const ESBUILD_VERSION = JSON.parse(
  fs.readFileSync(path.join(path.dirname(ESBUILD), '..', 'package.json'), 'utf8'),
).version;
const TARGET = `node${process.versions.node}`;
const IN_NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/** esbuild, loaded on the first miss only. */
let esbuild;
/** The tsconfig text that applies in a folder ('' for none), by folder. */
const tsconfigs = new Map();

/** The text of the nearest tsconfig.json (or jsconfig.json) in `dir` or above, '' when none. */
function tsconfigOf(dir) {
  let found = tsconfigs.get(dir);
  if (found !== undefined) return found;
  found = '';
  for (const name of ['tsconfig.json', 'jsconfig.json']) {
    try {
      found = fs.readFileSync(path.join(dir, name), 'utf8');
      break;
    } catch {}
  }
  if (found === '') {
    const parent = path.dirname(dir);
    if (parent !== dir) found = tsconfigOf(parent);
  }
  tsconfigs.set(dir, found);
  return found;
}

const sha = (algorithm, text) => createHash(algorithm).update(text).digest('hex');

function report(message) {
  if (REPORT) process.stderr.write(`ts-register: ${message}\n`);
}

/** The cached code of `key`, or why there is none. */
function read(file, key) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { why: 'not cached' };
  }
  const newline = text.indexOf('\n');
  const code = text.slice(newline + 1);
  if (newline < 0 || text.slice(0, newline) !== `${FORMAT} ${key} ${sha('sha1', code)}`)
    return { why: 'cache entry corrupt' };
  return { code };
}

function write(file, key, code) {
  const temporary = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(CACHE, { recursive: true });
    fs.writeFileSync(temporary, `${FORMAT} ${key} ${sha('sha1', code)}\n${code}`);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    report(`cannot cache ${file}: ${error.message}`);
  }
}

/** The CommonJS code of the TypeScript `source` of `filename`, from the cache or from esbuild. */
function compile(source, filename) {
  const options = {
    sourcefile: filename,
    loader: 'ts',
    format: 'cjs',
    target: TARGET,
    sourcemap: 'inline',
    tsconfigRaw: tsconfigOf(path.dirname(filename)) || '{}',
  };
  const key = sha(
    'sha256',
    `${FORMAT}\0esbuild ${ESBUILD_VERSION}\0${JSON.stringify(options)}\0${source}`,
  );
  const file = path.join(CACHE, `${key}.js`);
  const cached = read(file, key);
  if (cached.code !== undefined) return cached.code;
  report(`compiled ${filename} (${cached.why})`);
  if (esbuild === undefined) esbuild = require(ESBUILD);
  const result = esbuild.transformSync(source, options);
  for (const warning of result.warnings) {
    const at = warning.location ? `${filename}:${warning.location.line}: ` : `${filename}: `;
    process.stderr.write(`ts-register: warning: ${at}${warning.text}\n`);
  }
  write(file, key, result.code);
  return result.code;
}

const loadJs = Module._extensions['.js'];
Module._extensions['.ts'] = function loadTs(module, filename) {
  // As esbuild-register did: a package's own files are Node's business.
  if (filename.includes(IN_NODE_MODULES)) return loadJs(module, filename);
  module._compile(compile(fs.readFileSync(filename, 'utf8'), filename), filename);
};
process.setSourceMapsEnabled(true);
