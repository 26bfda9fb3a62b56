import type { CompanyResult } from './company.js';
import { createDataSet } from './data-set.js';

let cached: readonly CompanyResult[] | undefined;

/**
 * The data set every service uses unless given its own companies. Generated on
 * first use rather than on import, so that importing this package costs nothing
 * to a process that never starts a service with the default data.
 */
export function defaultDataSet(): readonly CompanyResult[] {
  cached ??= createDataSet();
  return cached;
}
