import { library } from '../../tsdown.base';

export default library({ index: 'src/index.ts' });
