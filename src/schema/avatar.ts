import type { Avatar } from '../upstream/company.js';
import { builder } from './builder.js';
import { upstreamFieldsOf } from './upstream-field.js';

const field = upstreamFieldsOf<Avatar>();

export const AvatarRef = builder.objectRef<Avatar>('Avatar').implement({
  description: 'What to show for a company: its logo when there is one, otherwise its initials.',
  fields: (t) => ({
    image: t.field({
      type: 'URL',
      nullable: true,
      description: 'URL of the logo image; null when none is held.',
      resolve: field('image'),
    }),
    initials: t.string({
      nullable: true,
      description: 'Initials of the company name, one upper-case letter.',
      resolve: field('initials'),
    }),
  }),
});
