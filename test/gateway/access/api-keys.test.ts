import { describe, expect, it, vi } from 'vitest';
import { parseApiKeys } from '../../../src/gateway/access/api-keys.js';
import { changedSettings, readConfig } from '../../../src/gateway/config/gateway-config.js';

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

/** `id:key` entries for `count` clients, each key 64 hex digits as `openssl rand -hex 32` writes. */
const manyKeys = (count: number) =>
  Array.from({ length: count }, (_, index) => `client-${index}:${index.toString(16).padStart(64, '0')}`).join(',');

/**
 * How many elements `read` scans with the array methods that look for one
 * element among many, and how many buffers it compares: the work a search
 * for repeats among the entries read so far does, counted rather than timed.
 */
function scansDuring(read: () => void): number {
  let scanned = 0;
  const searches = [
    'some',
    'every',
    'find',
    'findIndex',
    'findLast',
    'findLastIndex',
    'includes',
    'indexOf',
    'lastIndexOf',
    'filter',
  ] as const;
  const spies = [
    ...searches.map((method) => {
      const original = Array.prototype[method] as (...args: unknown[]) => unknown;
      return vi.spyOn(Array.prototype, method).mockImplementation(function (this: unknown[], ...args: unknown[]) {
        scanned += this.length;
        return original.apply(this, args);
      } as never);
    }),
    ...(['equals', 'compare'] as const).map((method) => {
      const original = Buffer.prototype[method] as (...args: unknown[]) => unknown;
      return vi.spyOn(Buffer.prototype, method).mockImplementation(function (this: Buffer, ...args: unknown[]) {
        scanned += 1;
        return original.apply(this, args);
      } as never);
    }),
  ];
  try {
    read();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return scanned;
}

describe('parseApiKeys on a large file', () => {
  it('looks for repeated ids and keys without scanning the entries read so far: work linear in the entries', () => {
    const count = 1_000;
    let read: ReturnType<typeof parseApiKeys> | undefined;
    // A search among the entries read so far scans about count² of them (a million and a half here); sets scan none.
    expect(scansDuring(() => (read = parseApiKeys('GATEWAY_API_KEYS', manyKeys(count))))).toBeLessThanOrEqual(count);
    expect(read!.problems).toEqual([]);
    expect(read!.keys.map((key) => key.id)).toEqual(Array.from({ length: count }, (_, index) => `client-${index}`));
  });

  it('tells a reload what changed among many keys without writing them out as JSON', () => {
    const before = readConfig({ GATEWAY_API_KEYS: manyKeys(2_000) });
    const env = { GATEWAY_API_KEYS: `${manyKeys(2_000)},late:${'e'.repeat(64)}` };
    const after = readConfig(env);
    // The bytes of JSON written while comparing: each key's hash is 32 numbers in JSON, some 200 KB for 2,000 keys.
    let written = 0;
    const original = JSON.stringify;
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      const text = original(...args);
      written += text?.length ?? 0;
      return text;
    });
    try {
      expect(changedSettings(before, after, env)).toEqual([
        { key: 'apiKeys', variable: 'GATEWAY_API_KEYS', reloads: true, change: 'added late' },
      ]);
      expect(changedSettings(after, after, env)).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    expect(written).toBeLessThan(10_000);
  });

  it('tells a reload of a key replaced under its id, and of keys only reordered', () => {
    const config = (keys: string) => readConfig({ GATEWAY_API_KEYS: keys });
    const [web, mobile, other] = [WEB_KEY, MOBILE_KEY, 'o'.repeat(40)];
    const changes = (before: string, after: string) =>
      changedSettings(config(before), config(after), {}).map((setting) => [setting.key, setting.change]);
    expect(changes(`web:${web},mobile:${mobile}`, `web:${other},mobile:${mobile}`)).toEqual([['apiKeys', 'new key for web']]);
    expect(changes(`web:${web},mobile:${mobile}`, `mobile:${mobile},web:${web}`)).toEqual([['apiKeys', 'reordered']]);
    expect(changes(`web:${web},mobile:${mobile}`, `web:${web},mobile:${mobile}`)).toEqual([]);
  });

  it('still names the entries that repeat an id or a key among many', () => {
    const key = (index: number) => index.toString(16).padStart(64, '0');
    const raw = `${manyKeys(1_000)},client-999:${'f'.repeat(64)},late:${key(3)},client-3:${key(3)}`;
    expect(parseApiKeys('GATEWAY_API_KEYS', raw).problems).toEqual([
      'GATEWAY_API_KEYS entry 1001 repeats the id client-999',
      'GATEWAY_API_KEYS entry 1002 (late) repeats the key of another entry',
      'GATEWAY_API_KEYS entry 1003 repeats the id client-3',
    ]);
  });
});
