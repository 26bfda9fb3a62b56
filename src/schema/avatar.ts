import { AVATAR, type Avatar } from '../upstream/company.js';
import { builder } from './builder.js';
import { upstreamFields } from './upstream-field.js';

const expose = upstreamFields(AVATAR, 'an avatar');

export const AvatarRef = builder.objectRef<Avatar>('Avatar').implement({
  description: 'What to show for a company: its logo when there is one, otherwise its initials.',
  fields: (t) => ({
    image: expose(t, 'image', 'URL of the logo image; null when none is held.'),
    initials: expose(t, 'initials', 'Initials of the company name, one upper-case letter.'),
  }),
});
