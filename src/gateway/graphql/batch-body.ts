const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const OPENING_BRACKET = 0x5b;

/** Whether a JSON request body is a batch: its first byte after whitespace opens an array. */
export function isBatchBody(body: Buffer): boolean {
  for (const byte of body) {
    if (!JSON_WHITESPACE.has(byte)) return byte === OPENING_BRACKET;
  }
  return false;
}
