/**
 * A child process that hosts adapters' webhook endpoints (a factory module and the names of its
 * factories, comma-separated, given on the command line) and reports its own resident memory: the baseline when asked, then the peak
 * sampled every few milliseconds until asked again. Its RSS is the server's alone, not jest's.
 */
import type { MemoryApps } from './memory-apps';

type Message = { type: 'baseline' } | { type: 'peak' } | { type: 'close' };

const [modulePath, exportNames] = process.argv.slice(2) as [string, string];
const send = (message: object) => process.send?.(message);
const collect = () => (globalThis as { gc?: () => void }).gc?.();

async function main(): Promise<void> {
  const factories = require(modulePath) as Record<string, () => Promise<MemoryApps>>;
  const started: Array<MemoryApps & { factory: string }> = [];
  for (const factory of exportNames.split(',')) {
    const start = factories[factory];
    if (!start) throw new Error(`${modulePath} exports no ${factory}`);
    started.push({ ...(await start()), factory });
  }
  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  process.on('message', async (message: Message) => {
    if (message.type === 'baseline') {
      collect();
      peak = process.memoryUsage.rss();
      sampler = setInterval(sample, 5);
      send({ type: 'baseline', rss: peak });
    } else if (message.type === 'peak') {
      clearInterval(sampler);
      sample();
      send({ type: 'peak', rss: peak });
    } else if (message.type === 'close') {
      for (const apps of started) await apps.close();
      process.exit(0);
    }
  });
  const endpoints = started.flatMap(({ factory, endpoints }) =>
    endpoints.map((endpoint) => ({ ...endpoint, factory })),
  );
  send({ type: 'ready', endpoints });
}

main().catch((error: unknown) => {
  send({ type: 'error', error: String((error as Error)?.stack ?? error) });
  process.exit(1);
});
