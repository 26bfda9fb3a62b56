/**
 * upstream/company.ts declares the upstream company once; the reader of
 * search bodies and the codec of windows shared through Redis follow from it.
 * These tests are made from the declaration too, so a field declared later is
 * covered without a change here: read at the edge of what it takes, carried
 * whole through Redis, and refused one character past its cap.
 */
import { describe, expect, it } from 'vitest';
import { COMPANY, fieldNames, MAX_PREVIOUS_NAMES } from '../../src/upstream/company.js';
import { readSearchResponse } from '../../src/upstream/search-response.js';
import { decodeWindow, encodeWindow } from '../../src/upstream/window-codec.js';
import { NO_REPEATS, type SearchWindow } from '../../src/upstream/window-size.js';
import { cappedUpstreamFields, upstreamCompanyAtEdges, withValueAt } from '../support/declared-companies.js';

const KEY = 'acme|gb|0';
const read = (results: unknown[]) => readSearchResponse(JSON.stringify({ results, total: results.length }), 'GB', 'test', 50);
const throughRedis = (slots: SearchWindow['slots']) =>
  decodeWindow(encodeWindow(KEY, { slots, repeated: NO_REPEATS, total: slots.length, fetchedAt: 1, fetchedAtWall: 1 }), KEY, 50)?.slots;

describe('the declaration of the upstream company', () => {
  it('reads every declared field at the edge of what it takes, and Redis gives each back as read', () => {
    const answer = read([upstreamCompanyAtEdges()]);
    expect(answer.invalidFields).toEqual([]);
    const [company] = answer.slots;
    expect(Object.keys(company!)).toEqual(fieldNames(COMPANY));
    const nulls = Object.entries(company!).filter(([, value]) => value === null || (Array.isArray(value) && value.length === 0));
    expect(nulls).toEqual([]);
    expect(company!.previousNames).toHaveLength(MAX_PREVIOUS_NAMES);
    expect(throughRedis(answer.slots)).toEqual(answer.slots);
  });

  it('has a cap for every string, and reads one past it as unreadable, wherever it is', () => {
    const capped = cappedUpstreamFields();
    expect(capped.map((field) => field.path.join('.'))).toEqual(
      expect.arrayContaining([
        'name',
        'companyNumber',
        'status',
        'address',
        'addressStructured.city',
        'avatar.image',
        'previousNames.0.name',
      ]),
    );
    for (const { path, maxLength, required, ofLength } of capped) {
      const where = path.join('.');
      const atCap = withValueAt(upstreamCompanyAtEdges(), path, ofLength(maxLength));
      const tooLong = withValueAt(upstreamCompanyAtEdges(), path, ofLength(maxLength + 1));
      expect(read([atCap]).invalidFields, `${where} at its cap`).toEqual([]);
      const answer = read([tooLong]);
      // The log names the field: a company, or a list entry, without its required field is left out as a whole; any other
      // field reads as null.
      expect(answer.invalidFields, where).toEqual([`results[0].${where.replace(/\.(\d+)/g, '[$1]')}`]);
      if (required && path.length === 1) expect(answer.slots, where).toEqual([null]);
      expect(throughRedis(answer.slots), where).toEqual(answer.slots);
    }
  });

  it('takes from Redis no window the reader could not have made: a stored string past its cap is no window', () => {
    const [company] = read([upstreamCompanyAtEdges()]).slots;
    const stored = JSON.parse(encodeWindow(KEY, { slots: [company!], repeated: NO_REPEATS, total: 1, fetchedAt: 1, fetchedAtWall: 1 }));
    expect(decodeWindow(JSON.stringify(stored), KEY, 50)).toBeDefined();
    for (const [path, value] of [
      [['name'], 'n'.repeat(COMPANY.name.maxLength + 1)],
      [['address', 'city'], 'c'.repeat(COMPANY.address.shape.city.maxLength + 1)],
      [['avatar', 'image'], 'javascript:alert(1)'],
      [['previousNames', '0', 'startDate'], '2023-02-29'],
      [['jurisdiction'], 'GBR'],
    ] as const) {
      const changed = withValueAt(stored, ['slots', '0', ...path], value);
      expect(decodeWindow(JSON.stringify(changed), KEY, 50), path.join('.')).toBeUndefined();
    }
  });
});
