import type { Avatar } from '../upstream/company.js';
import { builder } from './builder.js';

export const AvatarRef = builder.objectRef<Avatar>('Avatar').implement({
  description: 'What to show for a company: its logo when there is one, otherwise its initials.',
  fields: (t) => ({
    image: t.expose('image', { type: 'URL', nullable: true, description: 'URL of the logo image; null when none is held.' }),
    initials: t.exposeString('initials', {
      nullable: true,
      description: 'Initials of the company name, one upper-case letter.',
    }),
  }),
});
