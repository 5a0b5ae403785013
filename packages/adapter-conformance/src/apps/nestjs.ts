/**
 * @module `@webhook-idempotency/adapter-conformance/apps/nestjs`: the NestJS registry entries of
 * the adapter conformance suite (Nest 12 on the Express and the Fastify platform), and
 * `startNest`/`startNestMiddleware`, which the NestJS package's own tests and the inbox table start
 * their Nest apps with. Compiled with legacy decorators (jest.config.ts `DECORATED`,
 * packages/nestjs/tsconfig.json).
 */
import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import {
  Controller,
  Get,
  HttpCode,
  type INestApplication,
  type MiddlewareConsumer,
  Module,
  RequestMethod,
  Post,
  Req,
  Res,
  StreamableFile,
  type Type,
} from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import {
  Idempotent,
  IdempotencyModule,
  type NestRequest,
  type NestIdempotencyOptions,
} from '@webhook-idempotency/nestjs';
import type { AdapterEntry, Answer, Handler, NativeLike, Observer, RunningApp } from '../types';

/** What both platforms' responses offer a handler with `@Res({ passthrough: true })`. */
interface PlatformResponse {
  status(code: number): unknown;
  header?(name: string, value: unknown): unknown;
  setHeader?(name: string, value: unknown): unknown;
}

type Request = NestRequest & { raw?: IncomingMessage; socket?: Socket };

/** Renders a neutral answer the Nest way: status and headers on the response, the body returned. */
export function render(res: PlatformResponse, answer: Answer): unknown {
  res.status(answer.status ?? 200);
  for (const [name, value] of Object.entries(answer.headers ?? {})) {
    if (res.setHeader) res.setHeader(name, value);
    else res.header?.(name, value);
  }
  switch (answer.kind) {
    case 'json':
    case 'text':
      return answer.value;
    case 'buffer':
      return new StreamableFile(answer.value);
    case 'stream':
      return new StreamableFile(Readable.from(answer.chunks.map((chunk) => Buffer.from(chunk))));
    case 'empty':
      return undefined;
    default:
      throw new Error(`nest cannot answer with ${answer.kind}`);
  }
}

export type Platform = 'express' | 'fastify';

/** The socket of a request on either platform. */
export const socketOf = (req: Request): Socket => (req.raw?.socket ?? req.socket) as Socket;

/**
 * Builds, initialises and starts a Nest app (raw body kept unless `rawBody: false`, no logger) on
 * a free loopback port, with `observe` called from outside the guard once each request is answered.
 */
export async function startNest(
  platform: Platform,
  module: Type,
  observe?: Observer | { readonly observe?: Observer; readonly rawBody?: boolean },
): Promise<RunningApp & { app: INestApplication }> {
  const settings = typeof observe === 'function' ? { observe } : (observe ?? {});
  return startNestWith(platform, module, settings);
}

async function startNestWith(
  platform: Platform,
  module: Type,
  { observe, rawBody = true }: { readonly observe?: Observer; readonly rawBody?: boolean },
): Promise<RunningApp & { app: INestApplication }> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
  if (observe && platform === 'fastify') {
    (adapter as FastifyAdapter)
      .getInstance()
      .addHook('onResponse', async (request) =>
        observe({ headers: request.headers, idempotency: (request as Request).idempotency }),
      );
  }
  const app = moduleRef.createNestApplication(adapter, {
    rawBody,
    logger: false,
    forceCloseConnections: true,
  });
  if (observe && platform === 'express') {
    app.use((req: Request, res: ServerResponse, next: () => void) => {
      res.once('finish', () => observe({ headers: req.headers, idempotency: req.idempotency }));
      next();
    });
  }
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close();
    throw error;
  }
  return { app, server: app.getHttpServer(), close: () => app.close() };
}

/**
 * Nest on Express with `middleware` as module middleware on `POST /<path>` (how the Express
 * adapter's `inbox(options)` runs in Nest, docs/adapters/nestjs.md), `rawBody: true`. No route:
 * a request the middleware hands on is Nest's 404.
 */
export function startNestMiddleware(
  middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void,
  path: string,
): Promise<RunningApp & { app: INestApplication }> {
  @Module({})
  class MiddlewareModule {
    configure(consumer: MiddlewareConsumer) {
      consumer.apply(middleware).forRoutes({ path, method: RequestMethod.POST });
    }
  }
  return startNest('express', MiddlewareModule);
}

function entry(platform: Platform): AdapterEntry {
  return {
    name: `nestjs on ${platform}`,
    capabilities: { writeAndEnd: false, streamBody: true, socket: true },
    async start(options, handler: Handler, observe: Observer) {
      @Controller()
      class HookController {
        // hook/<operation>: a provider whose operation is the last path segment (Uzum Bank).
        @Post(['hook', 'hook/:operation'])
        @HttpCode(200)
        @Idempotent()
        async hook(@Req() req: Request, @Res({ passthrough: true }) res: PlatformResponse) {
          const answer = await handler({
            headers: req.headers,
            idempotency: req.idempotency as never,
            socket: socketOf(req),
          });
          return render(res, answer);
        }

        @Get('hook')
        @HttpCode(200)
        @Idempotent()
        handshake(@Req() req: Request, @Res({ passthrough: true }) res: PlatformResponse) {
          return this.hook(req, res);
        }
      }
      @Module({
        imports: [IdempotencyModule.forRoot(options as NestIdempotencyOptions)],
        controllers: [HookController],
      })
      class HookModule {}
      return startNest(platform, HookModule, observe);
    },
  };
}

/** Nest on both platforms it supports (on Fastify with a sample of the presets). */
export const nestApps: readonly AdapterEntry[] = [
  entry('express'),
  { ...entry('fastify'), presets: 'sample' },
];

export type { NativeLike };
