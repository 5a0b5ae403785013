/** @module Starting and stopping a node:http server the way every adapter's tests need it. */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { RunningApp } from './types';

/** Waits until `server` (already told to listen on port 0) listens; `close` also drops kept-alive sockets. */
export async function running(server: Server): Promise<RunningApp> {
  await once(server, 'listening');
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
