import { describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/lookup-service/token-store.js';

describe('TokenStore', () => {
  it('keeps a token valid for exactly its lifetime', () => {
    let now = 1_000;
    const store = new TokenStore(() => now);
    const token = store.issue(500);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    now = 1_499;
    expect(store.isValid(token)).toBe(true);
    now = 1_500;
    expect(store.isValid(token)).toBe(false);
    expect(store.isValid('unknown')).toBe(false);
  });

  it('forgets expired tokens, so memory stays bounded', () => {
    let now = 0;
    const store = new TokenStore(() => now);
    const expired = [store.issue(10), store.issue(10)];
    const lasting = store.issue(60_000);
    now = 500;
    store.issue(10);
    expect(store.size).toBe(4);
    now = 1_000;
    store.issue(10);
    expect(store.size).toBe(2);
    expect(store.isValid(lasting)).toBe(true);
    expect(expired.map((token) => store.isValid(token))).toEqual([false, false]);
  });

  it('lists the tokens it would accept now', () => {
    let now = 0;
    const store = new TokenStore(() => now);
    const shortLived = store.issue(10);
    const lasting = store.issue(60_000);
    expect(store.validTokens()).toEqual([shortLived, lasting]);
    now = 10;
    expect(store.validTokens()).toEqual([lasting]);
  });

  it('revokes every token at once', () => {
    const store = new TokenStore();
    const tokens = [store.issue(60_000), store.issue(60_000)];
    store.revokeAll();
    expect(tokens.map((token) => store.isValid(token))).toEqual([false, false]);
    expect(store.isValid(store.issue(60_000))).toBe(true);
  });
});
