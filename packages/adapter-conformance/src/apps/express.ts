/**
 * @module `@webhook-idempotency/adapter-conformance/apps/express`: the Express registry entries
 * of the adapter conformance suite (Express 5 and Express 4), and the `render`/`listen` helpers the
 * Express package's own tests build their apps with.
 */
import { Readable } from 'node:stream';
import type { IdempotencyOptions } from '@webhook-idempotency/core';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import express5 from 'express';
import express4 from 'express4';
import type { Application, Request, Response } from 'express';
import { running } from '../server';
import type { AdapterEntry, Answer, Handler, NativeLike, Observer, RunningApp } from '../types';

/** Renders a neutral answer the Express way. */
export function render(res: Response, answer: Answer): void {
  res.status(answer.status ?? 200);
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  switch (answer.kind) {
    case 'json':
      res.json(answer.value);
      return;
    case 'text':
    case 'buffer':
      res.send(answer.value);
      return;
    case 'write-end':
      for (const chunk of answer.chunks) res.write(chunk);
      res.end();
      return;
    case 'stream':
      Readable.from(answer.chunks).pipe(res);
      return;
    case 'empty':
      res.end();
  }
}

/** Starts `app` on a free loopback port. */
export function listen(app: Application): Promise<RunningApp> {
  return running(app.listen(0, '127.0.0.1'));
}

function entry(name: string, framework: typeof express5): AdapterEntry {
  return {
    name,
    capabilities: { writeAndEnd: true, streamBody: true, socket: true },
    async start(options: IdempotencyOptions<NativeLike>, handler: Handler, observe: Observer) {
      const middleware = idempotent(options);
      const app = framework();
      app.use((req, res, next) => {
        res.once('finish', () => observe({ headers: req.headers, idempotency: req.idempotency }));
        next();
      });
      const route = (req: Request, res: Response, next: (error: unknown) => void) => {
        handler({ headers: req.headers, idempotency: req.idempotency, socket: req.socket }).then(
          (answer) => render(res, answer),
          next,
        );
      };
      // Form-encoded providers (Twilio, Braintree) too: each parser keeps the bytes on req.rawBody.
      const parsers = [
        framework.json({ verify: saveRawBody }),
        framework.urlencoded({ extended: false, verify: saveRawBody }),
      ];
      // /hook/<operation>: a provider whose operation is the last path segment (Uzum Bank).
      app.post(['/hook', '/hook/:operation'], ...parsers, middleware, route);
      app.get('/hook', middleware, route);
      return listen(app);
    },
  };
}

/** Express 5 and Express 4, the majors the peer range declares (Express 4 with a sample of the presets). */
export const expressApps: readonly AdapterEntry[] = [
  entry('express 5', express5),
  { ...entry('express 4', express4 as typeof express5), presets: 'sample' },
];
