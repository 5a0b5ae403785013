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
  'types/line': 'src/types/line.ts',
});
