import type { PreviousName } from '../upstream/company.js';
import { builder } from './builder.js';
import { upstreamFieldsOf } from './upstream-field.js';

const field = upstreamFieldsOf<PreviousName>();

export const PreviousNameRef = builder.objectRef<PreviousName>('PreviousName').implement({
  description: 'A name the company was registered under before, with the dates it was used.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The earlier name.' }),
    startDate: t.field({ type: 'Date', nullable: true, description: 'First day the name was used.', resolve: field('startDate') }),
    endDate: t.field({ type: 'Date', nullable: true, description: 'Last day the name was used.', resolve: field('endDate') }),
  }),
});
