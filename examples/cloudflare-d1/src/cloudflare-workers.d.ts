/**
 * The one part of Cloudflare's runtime types these Workers use: the bindings, as `env` of the
 * `cloudflare:workers` module. A Worker project gets this declaration from `wrangler types` (or
 * @cloudflare/workers-types); wrangler leaves the module to workerd when it bundles.
 */
declare module 'cloudflare:workers' {
  export const env: import('./pushes').Env;
}
