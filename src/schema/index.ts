import { builder } from './builder.js';
import './scalars.js';
import './company.js';
import './company-connection.js';
import { withSyncGlobalIds } from './sync-global-ids.js';

export const schema = withSyncGlobalIds(builder.toSchema({ sortSchema: false }));
