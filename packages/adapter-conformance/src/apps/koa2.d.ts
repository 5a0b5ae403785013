/** Koa 2 is installed under the alias `koa2`; its API is typed by @types/koa, which covers what the registry and the tests use. */
declare module 'koa2' {
  import Koa = require('koa');
  export = Koa;
}
