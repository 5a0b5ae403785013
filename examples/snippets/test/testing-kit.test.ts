/** docs/providers.md: the test kit's deliveries through Express (supertest), Fastify (inject) and Hono (a fetch Request). */
import { batch, handshakes, withFetch, withInject, withSupertest } from '../src/testing-kit';

describe('the test kit of docs/providers.md', () => {
  it('supertest: the delivery runs once, the retry is replayed, the forged copy and an hour-old one are 401', async () => {
    const { statuses, replayed, runs } = await withSupertest();
    expect(statuses).toEqual([200, 200, 401, 401]);
    expect(replayed).toBe('true');
    expect(runs).toEqual(['evt_1']);
  });

  it("Fastify's inject: the delivery and its redelivery, replayed", async () => {
    expect(await withInject()).toEqual([200, 200, 'true']);
  });

  it('a fetch Request to Hono: the delivery and its retry signed anew, replayed', async () => {
    expect(await withFetch()).toEqual([200, 200, 'true']);
  });

  it('handshakes and challenges are answered as the kit says the provider expects; a wrong token is 403', async () => {
    const { pong, echoed, refused } = await handshakes();
    expect(pong).toEqual([200, '{"type":1}', '{"type":1}']);
    expect(echoed[0]).toBe(200);
    expect(echoed[1]).toBe(echoed[2]);
    expect(refused).toBe(403);
  });

  it('a batch books each item once; its retry books nothing again', async () => {
    expect(await batch()).toEqual(['62515:7:1', '62515:7:2']);
  });
});
