/** The shapes of window whose heap size window-size.test.ts checks; children/window-sizes.ts makes them. */
export const WINDOW_SHAPES = [
  'no results',
  'one result',
  // Hundreds of full windows, megabytes held.
  '50 distinct results',
  '50 results, every other one a repeat',
  '50 results with malformed fields',
] as const;

export type WindowShape = (typeof WINDOW_SHAPES)[number];
