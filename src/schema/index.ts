import { builder } from './builder.js';
import './scalars.js';
import './company.js';
import './company-connection.js';

export const schema = builder.toSchema({ sortSchema: false });
