/**
 * @module The app's Next.js configuration. Type errors are not checked again by `next build`:
 * the project's own `tsc --noEmit` checks every source (and `next build` then spends its time on
 * compiling, not on a second type check). Next.js 16 no longer lints during a build.
 */
import type { NextConfig } from 'next';

// #region config
const config: NextConfig = {
  // `tsc --noEmit` checks the types in CI (here, the workspace's typecheck); the build only compiles.
  typescript: { ignoreBuildErrors: true },
};
// #endregion config

export default config;
