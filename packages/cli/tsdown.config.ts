import { library } from '../../tsdown.base';

// bin: the `webhook-idempotency` command (its shebang makes tsdown mark the file executable).
export default library({ index: 'src/index.ts', bin: 'src/bin.ts' });
