import { defaultDataSet, searchIndexFor } from '../../src/lookup-service/index.js';

/**
 * How many companies of the default data set the lookup service finds for
 * `q` in `jurisdiction`, as its search counts them: tests expect what the data
 * set holds, computed here, rather than a number written down that any change
 * to the generated data would make wrong.
 */
export function matchCount(q: string, jurisdiction = 'GB'): number {
  return searchIndexFor(defaultDataSet()).search({ q, jurisdiction, page: 1, pageSize: 1 }).total;
}
