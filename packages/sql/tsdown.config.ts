import { library } from '../../tsdown.base';

export default library({
  index: 'src/index.ts',
  kysely: 'src/kysely.ts',
  drizzle: 'src/drizzle.ts',
  postgres: 'src/postgres-js.ts',
  prisma: 'src/prisma.ts',
  d1: 'src/d1.ts',
});
