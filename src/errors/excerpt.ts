/** Longest part of a client's value (a header, a string variable) an error message quotes. */
export const QUOTED_VALUE_LIMIT = 100;

/** `value` cut to QUOTED_VALUE_LIMIT characters, so that a message names what was sent without echoing all of it. */
export function excerpt(value: string): string {
  return value.length > QUOTED_VALUE_LIMIT ? `${value.slice(0, QUOTED_VALUE_LIMIT)}…` : value;
}
