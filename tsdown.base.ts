/**
 * The one build every published package uses: ESM (`.mjs`) and CommonJS (`.cjs`) with their own
 * declarations (`.d.mts`, `.d.cts`) and source maps, for Node 20 and later. Dependencies and peers
 * stay external; `onlyBundle: []` fails the build if anything from node_modules would be inlined.
 */
import type { UserConfig } from 'tsdown';

export function library(entry: Record<string, string>): UserConfig {
  return {
    entry,
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'node20',
    fixedExtension: true,
    dts: true,
    sourcemap: true,
    clean: true,
    tsconfig: '../../tsconfig.build.json',
    deps: { onlyBundle: [] },
  };
}
