import { library } from '../../tsdown.base';

export default library({
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  // Type-only entries: each imports its SDK with `import type`, so its JavaScript is empty.
  'types/stripe': 'src/types/stripe.ts',
  'types/github': 'src/types/github.ts',
  'types/slack': 'src/types/slack.ts',
  'types/discord': 'src/types/discord.ts',
  'types/clerk': 'src/types/clerk.ts',
  'types/resend': 'src/types/resend.ts',
  'types/telnyx': 'src/types/telnyx.ts',
  'types/openai': 'src/types/openai.ts',
  'types/replicate': 'src/types/replicate.ts',
  'types/polar': 'src/types/polar.ts',
  'types/dodopayments': 'src/types/dodopayments.ts',
  'types/mux': 'src/types/mux.ts',
  'types/workos': 'src/types/workos.ts',
  'types/line': 'src/types/line.ts',
  'types/gocardless': 'src/types/gocardless.ts',
  'types/microsoft-graph': 'src/types/microsoft-graph.ts',
  'types/azure-event-grid': 'src/types/azure-event-grid.ts',
  'types/chargebee': 'src/types/chargebee.ts',
});
