/** The root README's two commands stay true: the demo command and the test command CI runs. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const shBlocks = (markdown: string) =>
  [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

describe('README commands', () => {
  const blocks = shBlocks(read('README.md'));
  const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;

  it('gives the demo command: install pnpm, install, run the demo', () => {
    expect(blocks).toContain(
      'npm i -g pnpm@12.4.2 && npm_config_nodedir=/usr pnpm install && pnpm demo',
    );
    expect(scripts.demo).toContain('example-payment-webhook');
    expect(JSON.parse(read('examples/payment-webhook/package.json')).scripts.demo).toContain(
      'src/demo.ts',
    );
  });

  it('gives the test command, and .ci/run runs exactly that command', () => {
    expect(blocks).toContain('pnpm test');
    expect(scripts.test).toBe('pnpm run test:prepare && pnpm run test:jest');
    // run-jest.ts runs the other Node lines, the type check and the lint beside its first lane.
    expect(scripts['test:jest']).toBe('node -r esbuild-register test-support/run-jest.ts');
    const runner = read('test-support/run-jest.ts');
    expect(runner).toContain('run-node-lines.ts');
    expect(runner).toContain("script('typecheck')");
    expect(runner).toContain("script('lint')");
    expect(read('.ci/run')).toMatch(/\n\S*=\S* pnpm test\n|\npnpm test\n/);
  });

  it('pins the pnpm version the README installs', () => {
    expect(JSON.parse(read('package.json')).packageManager).toBe('pnpm@12.4.2');
    expect(read('.ci/run')).toContain('pnpm@12.4.2');
  });
});
