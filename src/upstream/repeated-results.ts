import type { Company } from './company.js';

/**
 * The slots of a window whose company (same jurisdiction and company number,
 * which make its node ID) came earlier in the same window: the first is kept
 * and these are left out, so no page carries one node twice. One pass, with a
 * set of at most one key per slot; the slots found come in ascending order.
 */
export function repeatedSlots(slots: readonly (Company | null)[]): number[] {
  const seen = new Set<string>();
  const repeated: number[] = [];
  slots.forEach((company, slot) => {
    if (company === null) return;
    const key = `${company.jurisdiction}:${company.companyNumber}`;
    if (seen.has(key)) repeated.push(slot);
    else seen.add(key);
  });
  return repeated;
}
