import { library } from '../../tsdown.base';

export default library({
  index: 'src/index.ts',
  express: 'src/mounts/express.ts',
  fastify: 'src/mounts/fastify.ts',
  koa: 'src/mounts/koa.ts',
  hono: 'src/mounts/hono.ts',
  fetch: 'src/mounts/fetch.ts',
});
