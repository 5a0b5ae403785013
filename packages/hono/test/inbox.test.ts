/** `inbox(options)` on Hono (issue 12): the shared inbox suite, served by @hono/node-server. */
import { runInboxConformance } from '@webhook-idempotency/adapter-conformance';
import { Hono } from 'hono';
import { inbox, type HonoInboxOptions } from '../src';
import { type AppEnv, listen } from '@webhook-idempotency/adapter-conformance/apps/hono';

runInboxConformance({
  name: 'hono 4 (@hono/node-server)',
  start(options) {
    const app = new Hono<AppEnv>();
    const endpoint = inbox(options as HonoInboxOptions);
    app.on('POST', ['/hook', '/hook/:operation'], endpoint, (c) => c.json({ passed: true }));
    // A provider's verification GET (Meta's, Okta's) is the endpoint's to answer.
    app.get('/hook', endpoint, (c) => c.json({ passed: true }));
    return listen(app);
  },
});
