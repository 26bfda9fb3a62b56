import { PREVIOUS_NAME, type PreviousName } from '../upstream/company.js';
import { builder } from './builder.js';
import { upstreamFields } from './upstream-field.js';

const expose = upstreamFields(PREVIOUS_NAME, 'a previous name');

export const PreviousNameRef = builder.objectRef<PreviousName>('PreviousName').implement({
  description: 'A name the company was registered under before, with the dates it was used.',
  fields: (t) => ({
    name: expose(t, 'name', 'The earlier name.'),
    startDate: expose(t, 'startDate', 'First day the name was used.'),
    endDate: expose(t, 'endDate', 'Last day the name was used.'),
  }),
});
