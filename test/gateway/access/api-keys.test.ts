import { describe, expect, it } from 'vitest';
import { parseApiKeys } from '../../../src/gateway/access/api-keys.js';

const WEB_KEY = 'w'.repeat(40);
const MOBILE_KEY = 'm'.repeat(40);

describe('parseApiKeys', () => {
  it('refuses keys listed a line each, which read as one key no client could send, without quoting them', () => {
    const { keys, problems } = parseApiKeys('GATEWAY_API_KEYS', `web:${WEB_KEY}\nmobile:${MOBILE_KEY}`);
    expect(keys).toEqual([]);
    expect(problems).toEqual([
      'GATEWAY_API_KEYS entry 1 (web) has a key holding a line break or another control character, which no X-Api-Key header can carry; separate entries with commas',
    ]);
  });

  it('takes the same keys separated by commas, a line break after each comma included', () => {
    const { keys, problems } = parseApiKeys('GATEWAY_API_KEYS', `web:${WEB_KEY},\nmobile:${MOBILE_KEY}`);
    expect(problems).toEqual([]);
    expect(keys.map((key) => key.id)).toEqual(['web', 'mobile']);
  });
});
