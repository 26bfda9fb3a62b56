import { describe, expect, it } from 'vitest';
import { Counters } from '../../src/lookup-service/counters.js';

describe('Counters', () => {
  it('keeps only the last 1000 search query strings', () => {
    const counters = new Counters();
    for (let i = 0; i < 1_005; i++) counters.recordSearchRequest(`q=${i}`);
    expect(counters.searchRequests).toBe(1_005);
    expect(counters.searchQueries).toHaveLength(1_000);
    expect(counters.searchQueries[0]).toBe('q=5');
    expect(counters.searchQueries.at(-1)).toBe('q=1004');
  });
});
