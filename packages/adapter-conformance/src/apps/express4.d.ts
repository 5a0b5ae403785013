/** Express 4 is installed under the alias `express4`; its API is typed by @types/express (v5), which covers what the registry and the tests use. */
declare module 'express4' {
  import express = require('express');
  export = express;
}
