/**
 * `inbox(options)` on Koa (issue 12): the shared inbox suite (packages/adapter-conformance), as
 * middleware after `rawBodyParser()`, on a listening server.
 */
import { running, runInboxConformance } from '@webhook-idempotency/adapter-conformance';
import Koa from 'koa';
import { inbox, type KoaInboxOptions, rawBodyParser } from '../src';

runInboxConformance({
  name: 'koa 3',
  start(options) {
    const app = new Koa();
    app.use(rawBodyParser());
    app.use(inbox(options as KoaInboxOptions));
    app.use((ctx) => {
      ctx.body = { passed: true };
    });
    return running(app.listen(0, '127.0.0.1'));
  },
});
