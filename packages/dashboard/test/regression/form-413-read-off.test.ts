/**
 * A form past the dashboard's 64 KiB limit is answered 413 on every mount, and a sender that
 * writes its whole body before reading gets that 413. The Node mounts (Express, Fastify, Koa) used
 * to answer and then close the connection under the write (the sender saw EPIPE or a reset, never
 * the answer) or leave the rest unread (the write never finished); the Web mounts (Hono, fetch)
 * already read it off. Now every mount reads off and discards the rest of a refused form within
 * core's bound (16 MiB, a 1 s pause, 10 s in all), so the answer arrives and the connection stays
 * usable; a sender that goes on past the bound gets its 413 and then a closed connection.
 */
import type { Socket } from 'node:net';
import { isAdmin, type Mounted, mounts, olderMajors } from '../helpers/mounts';
import { postWholeThenRead } from '../helpers/raw-sender';
import { seedMemory } from '../helpers/seed';

const BASE = '/admin/hooks';
const PURGE = `${BASE}/purge?retentionDays=0`;
const MiB = 1024 * 1024;
const ADMIN = { 'x-admin': 'yes' };

/** A next request on the connection the 413 came on: what it answers. */
function getOn(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
      if (answer.includes('\r\n\r\n')) resolve(answer.split('\r\n', 1)[0]!);
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(answer.split('\r\n', 1)[0]!));
    socket.resume();
    socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\nx-admin: yes\r\n\r\n`);
  });
}

describe.each([...mounts, ...olderMajors].map((m) => [m.label, m] as const))(
  'a form past the limit on %s',
  (_name, entry) => {
    let mounted: Mounted;
    let scene: Awaited<ReturnType<typeof seedMemory>>;
    const sockets: Socket[] = [];

    beforeEach(async () => {
      scene = await seedMemory();
      mounted = await entry.mount({
        basePath: BASE,
        authorize: isAdmin,
        receipts: scene.store,
      } as never);
    });
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      await mounted.close();
    });

    it.each([
      ['announced by content-length', false],
      ['chunked', true],
    ])(
      'a sender that writes all 4 MiB (%s) before reading gets the 413',
      async (_framing, chunked) => {
        const sent = await postWholeThenRead(mounted.origin, PURGE, 4 * MiB, {
          chunked,
          headers: ADMIN,
        });
        if (sent.socket) sockets.push(sent.socket);
        expect({ failure: sent.failure, status: sent.status }).toEqual({
          failure: undefined,
          status: 413,
        });
        expect(sent.answer).toContain('Form larger than 65536 bytes');
        expect(scene.store.size).toBe(6);
        // Nothing of the refused body is left on the connection: it carries the next request.
        expect(sent.socket).toBeDefined();
        expect(await getOn(sent.socket!, `${BASE}/`)).toBe('HTTP/1.1 200 OK');
      },
    );

    it('a sender that goes on writing past the bound gets the 413, then a closed connection', async () => {
      const sent = await postWholeThenRead(mounted.origin, PURGE, 256 * MiB, {
        chunked: true,
        headers: ADMIN,
        readWhileWriting: true,
      });
      if (sent.socket) sockets.push(sent.socket);
      expect(sent.status).toBe(413);
      expect(sent.failure).toMatch(/^(EPIPE|ECONNRESET)$/);
      expect(sent.written).toBeLessThan(128 * MiB);
      expect(scene.store.size).toBe(6);
    });
  },
);
