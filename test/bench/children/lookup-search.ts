import { Pool } from 'undici';
import { accessToken } from '../../support/lookup-client.js';
import type { LookupStarted } from '../protocol.js';

/** A page of the lookup service's search, as it sends it. */
export interface LookupPage {
  results: LookupResult[];
  total: number;
}

/** One result as the lookup service sends it (docs: /work/shared/company-lookup-interface.md). */
export interface LookupResult {
  name: string;
  companyNumber: string;
  jurisdiction: string;
  status: string;
  address: string;
  addressStructured: Record<string, string | number | null>;
  incorporatedDate: string;
  isPlatformMember: boolean;
  previousNames: { name: string; startDate: string; endDate: string }[];
  avatar: { image: string | null; initials: string };
}

export type LookupSearch = (q: string, jurisdiction: string, pageSize: number) => Promise<LookupPage>;

/**
 * The lookup service's search as the benchmark's plain contenders call it:
 * one connection pool and one token taken at start, the page read as JSON,
 * anything but a 200 an error. None of the gateway's checks, retries or caches.
 */
export async function connectLookup(lookup: LookupStarted): Promise<LookupSearch> {
  const pool = new Pool(lookup.url);
  const authorization = `Bearer ${await accessToken(lookup)}`;
  return async (q, jurisdiction, pageSize) => {
    const response = await pool.request({
      method: 'GET',
      path: `/v1/company/search?${new URLSearchParams({ q, jurisdiction, pageSize: String(pageSize) })}`,
      headers: { authorization, accept: 'application/json' },
    });
    if (response.statusCode !== 200) throw new Error(`The lookup service answered ${response.statusCode}: ${await response.body.text()}`);
    return (await response.body.json()) as LookupPage;
  };
}
