/**
 * Every declared setting drives a part of the gateway: the function of its
 * group in src/gateway/options-from-settings.ts takes it out by name. A
 * setting declared and read by no part (it would be validated, documented and
 * in --help, and do nothing) fails here, naming its variable; in a group that
 * has its function, the type check fails too.
 */
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import type { Setting } from '../../../src/gateway/config/kinds.js';
import { SETTING_GROUPS, type Settings } from '../../../src/gateway/config/settings.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';

/**
 * `settings` as a function sees it, with the names of the settings it takes
 * out by name (`const { port } = settings`, `settings.port`). The rest of an
 * object (`...unread`) copies the others: that asks for each one's descriptor
 * before reading it (ECMAScript's CopyDataProperties), and is not counted.
 */
function watched(settings: Settings): { settings: Settings; named: Set<string> } {
  const named = new Set<string>();
  let copying: string | symbol | undefined;
  const proxy = new Proxy(settings, {
    getOwnPropertyDescriptor(target, key) {
      copying = key;
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    get(target, key, receiver) {
      if (key !== copying && typeof key === 'string') named.add(key);
      copying = undefined;
      return Reflect.get(target, key, receiver);
    },
  });
  return { settings: proxy, named };
}

const DECLARED = SETTING_GROUPS.flatMap(({ title, settings }) =>
  Object.entries(settings).map(([key, declared]) => ({ key, variable: (declared as Setting<unknown>).env, group: title })),
);

describe('the settings and the parts of the gateway', () => {
  it('every declared setting is read by the options of a part, and nothing else is', () => {
    const { settings, named } = watched(readConfig({}));
    optionsOf(settings);
    expect(DECLARED.filter(({ key }) => !named.has(key)).map(({ variable, group }) => `${variable} (${group})`)).toEqual([]);
    expect(named.size).toBe(DECLARED.length);
  });

  it('finds a setting added to a group that no part reads, though the rest of every group copies it', () => {
    const { settings, named } = watched({ ...readConfig({}), upstreamUserAgent: 'company-search-gateway' } as Settings);
    optionsOf(settings);
    expect([...DECLARED.map(({ key }) => key), 'upstreamUserAgent'].filter((key) => !named.has(key))).toEqual(['upstreamUserAgent']);
  });
});
