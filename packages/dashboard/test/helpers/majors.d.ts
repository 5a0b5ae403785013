/** Express 4 and Koa 2 are installed under the aliases `express4` and `koa2`; @types/express (v5) and @types/koa cover what the mounts' tests use. */
declare module 'express4' {
  import express = require('express');
  export = express;
}
declare module 'koa2' {
  import Koa = require('koa');
  export = Koa;
}
