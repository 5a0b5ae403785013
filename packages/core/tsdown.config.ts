import { library } from '../../tsdown.base';

export default library({
  index: 'src/index.ts',
  adapter: 'src/adapter.ts',
  inbox: 'src/inbox/index.ts',
  outbox: 'src/outbox/index.ts',
  alerts: 'src/alerts/index.ts',
  routes: 'src/routing/index.ts',
  operations: 'src/operations/index.ts',
  testing: 'src/testing/index.ts',
});
