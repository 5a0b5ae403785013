/**
 * A cold start loads only what its route uses: each of the package's three functions, bundled
 * alone with a preset (with esbuild, as CDK's NodejsFunction and SAM do, honouring
 * `"sideEffects": false`), carries none of the other two, none of the other presets, no
 * node:http transport or queue bridge of core, and nothing of `aws-lambda` (its types only).
 */
import { build } from 'esbuild';

async function bundle(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: __dirname, loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    treeShaking: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A function only each part's own code declares. */
const MARKS = {
  guarded: 'function createEngine(',
  endpoint: 'function createInboxEngine(',
  worker: 'function createInboxWorker(',
  nodeHttp: 'function holdResponse(',
  webStreams: 'function answerWhileDiscarding(',
  relay: 'function createInboxRelay(',
  consumer: 'function createInboxConsumer(',
  stripe: 'stripe-signature',
  // Not its header name: core's inbox stores that header by default.
  github: 'X-GitHub-Delivery header',
};
type Mark = keyof typeof MARKS;

const cases: ReadonlyArray<readonly [string, string, Mark]> = [
  [
    'withIdempotency',
    "import { withIdempotency } from '../src'; import { stripe } from '@webhook-idempotency/providers'; console.log(withIdempotency, stripe);",
    'guarded',
  ],
  [
    'inbox',
    "import { inbox } from '../src'; import { stripe } from '@webhook-idempotency/providers'; console.log(inbox, stripe);",
    'endpoint',
  ],
  ['inboxWorker', "import { inboxWorker } from '../src'; console.log(inboxWorker);", 'worker'],
];

describe('cold start', () => {
  it.each(cases)(
    'importing %s bundles its own part and nothing else',
    async (_name, source, own) => {
      const text = await bundle(source);
      expect(text).toContain(MARKS[own]);
      const expected: Mark[] = own === 'worker' ? [own] : [own, 'stripe'];
      const found = (Object.keys(MARKS) as Mark[]).filter((mark) => text.includes(MARKS[mark]));
      expect(found.sort()).toEqual(expected.sort());
      expect(text).not.toMatch(/from ["']aws-lambda["']|require\(["']aws-lambda["']\)/);
    },
  );
});
