import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors/upstream-errors.js';
import { MAX_PREVIOUS_NAMES, readSearchResponse } from '../../src/upstream/search-response.js';
import { companyWith } from '../support/declared-companies.js';

const WHERE = 'GET /v1/company/search';
const read = (body: unknown, pageSize = 50) =>
  readSearchResponse(typeof body === 'string' ? body : JSON.stringify(body), 'GB', WHERE, pageSize);

const company = (overrides: Record<string, unknown> = {}) => ({
  name: 'Ferncastle Holdings Ltd',
  companyNumber: '01234567',
  jurisdiction: 'GB',
  status: 'ACTIVELY_TRADING',
  address: '1 High Street, Leeds',
  addressStructured: { streetLine1: '1 High Street', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB', latitude: 53.8, longitude: -1.5 },
  incorporatedDate: '2001-02-03T00:00:00Z',
  isPlatformMember: true,
  previousNames: [{ name: 'Ferncastle Ltd', startDate: '1999-01-01', endDate: '2001-02-02' }],
  avatar: { image: 'https://example.com/logo.png', initials: 'FH' },
  ...overrides,
});

describe('readSearchResponse', () => {
  it('reads a well-formed answer field by field', () => {
    const answer = read({ results: [company()], total: 12 });
    expect(answer).toEqual({ slots: [expect.any(Object)], unasked: 0, previousNamesLeftOut: 0, total: 12, invalidFields: [] });
    // Every field the declaration holds: those the body has as read, the others null.
    expect(answer.slots[0]).toEqual(
      companyWith({
        name: 'Ferncastle Holdings Ltd',
        companyNumber: '01234567',
        jurisdiction: 'GB',
        status: 'ACTIVELY_TRADING',
        address: {
          formatted: '1 High Street, Leeds',
          streetLine1: '1 High Street',
          streetLine2: null,
          city: 'Leeds',
          region: null,
          postcode: 'LS1 1AA',
          country: 'GB',
          latitude: 53.8,
          longitude: -1.5,
        },
        incorporatedDate: new Date('2001-02-03T00:00:00Z'),
        isPlatformMember: true,
        previousNames: [{ name: 'Ferncastle Ltd', startDate: '1999-01-01', endDate: '2001-02-02' }],
        avatar: { image: 'https://example.com/logo.png', initials: 'FH' },
      }),
    );
  });

  it('reads a malformed field as null on its own, noting where it was', () => {
    const answer = read({
      results: [
        company({
          status: 42,
          incorporatedDate: 'soon',
          isPlatformMember: 'yes',
          jurisdiction: 'Great Britain',
          addressStructured: { city: 'Leeds', latitude: 91 },
          avatar: { image: 'javascript:alert(1)', initials: 'FH' },
          previousNames: [{ name: 'Ferncastle Ltd', startDate: '2001-02-30' }],
        }),
      ],
      total: 1,
    });
    const [read0] = answer.slots;
    expect(read0).toMatchObject({
      status: null,
      incorporatedDate: null,
      isPlatformMember: null,
      // The search was for GB, which stands in for an unreadable jurisdiction.
      jurisdiction: 'GB',
      address: { city: 'Leeds', latitude: null },
      avatar: { image: null, initials: 'FH' },
      previousNames: [{ name: 'Ferncastle Ltd', startDate: null, endDate: null }],
    });
    expect(answer.invalidFields).toEqual(
      expect.arrayContaining([
        'results[0].status',
        'results[0].incorporatedDate',
        'results[0].isPlatformMember',
        'results[0].addressStructured.latitude',
        'results[0].avatar.image',
        'results[0].previousNames[0].startDate',
      ]),
    );
  });

  it('leaves out a result without a name or number, keeping the others in their places, and says which was missing', () => {
    const answer = read({ results: [company({ name: '  ' }), company({ companyNumber: 7 }), 'text', null, company()], total: 5 });
    expect(answer.slots.map((slot) => slot?.name ?? null)).toEqual([null, null, null, null, 'Ferncastle Holdings Ltd']);
    expect(answer.invalidFields).toEqual(['results[0].name', 'results[1].companyNumber', 'results[2]', 'results[3]']);
  });

  it('ignores fields it does not know', () => {
    const answer = read({ results: [company({ shareCapital: 'GBP 100' })], total: 1, next: '/page/2' });
    expect(answer.invalidFields).toEqual([]);
    expect(answer.slots[0]).not.toHaveProperty('shareCapital');
  });

  it('counts the results when total is missing or unusable, and never less than what was sent', () => {
    for (const total of [undefined, -1, 1.5, '7', 2 ** 31]) {
      const answer = read({ results: [company(), company({ companyNumber: '2' })], total });
      expect(answer.total).toBe(2);
      expect(answer.invalidFields).toEqual(['total']);
    }
    expect(read({ results: [company(), company({ companyNumber: '2' })], total: 1 }).total).toBe(2);
  });

  it('reads no further than the page size asked for, nor more previous names than MAX_PREVIOUS_NAMES', () => {
    const names = Array.from({ length: MAX_PREVIOUS_NAMES + 5 }, (_, i) => ({ name: `Old name ${i}` }));
    const results = Array.from({ length: 5 }, (_, i) => company({ companyNumber: String(i), previousNames: names }));
    const answer = read({ results, total: 100 }, 3);
    expect(answer.slots).toHaveLength(3);
    expect(answer.unasked).toBe(2);
    expect(answer.slots[0]!.previousNames).toHaveLength(MAX_PREVIOUS_NAMES);
    expect(answer.previousNamesLeftOut).toBe(15);
  });

  it('fails as a whole only when the body is not JSON or has no results array', () => {
    for (const body of ['<html>', '', 'null', '[]', '{"total":3}', '{"results":{}}']) {
      expect(() => read(body)).toThrow(UpstreamBadResponseError);
    }
    expect(read({ results: [] }).slots).toEqual([]);
  });
});
