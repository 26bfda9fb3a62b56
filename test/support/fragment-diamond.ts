/**
 * A document whose fragments each spread the next one twice, `levels` deep,
 * the last one holding `leaf`: about 40 characters a level, yet 2^levels
 * copies of `leaf` once the fragments are expanded where they are spread.
 */
export function fragmentDiamond(levels: number, leaf = 'searchCompanies(q: "zebra quantum", jurisdiction: "GB") { totalCount }'): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query Diamond { ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { ${leaf} }`;
}
