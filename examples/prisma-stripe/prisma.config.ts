/** @module The Prisma CLI's configuration (Prisma 7): where the schema and migrations are, and the database. */
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: env('DATABASE_URL') },
});
