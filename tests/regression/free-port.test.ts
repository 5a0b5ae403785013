/**
 * The test servers' ports come from below the kernel's range for outgoing connections: a storm's
 * app server killed and started again on its port once found it taken by another process's
 * outgoing connection (listen EADDRINUSE on a port of 32768–60999, the server crashing at each
 * restart), which a port outside that range cannot meet.
 */
import { createServer } from 'node:net';
import { freePort } from '@webhook-idempotency/test-support/databases';

it('gives ports below the outgoing range that a server can listen on, and another while one is taken', async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_000);
  }
  const held = createServer();
  const port = ports[0]!;
  await new Promise<void>((resolve) => held.listen(port, '127.0.0.1', resolve));
  try {
    const others = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(others).not.toContain(port);
  } finally {
    await new Promise((resolve) => held.close(resolve));
  }
});
