import { createHash } from 'node:crypto';
import { BadUserInputError } from '../errors/field-errors.js';

/**
 * Cursors are opaque to clients and bound to their search: each carries a
 * fingerprint of the normalized query, so a cursor from another search is
 * refused instead of silently paging through the wrong results.
 */
export function searchFingerprint(searchKey: string): string {
  return createHash('sha256').update(searchKey).digest('base64url').slice(0, 16);
}

export function encodeCursor(fingerprint: string, position: number): string {
  return Buffer.from(`${fingerprint}:${position}`).toString('base64url');
}

/** The position a cursor points at; `argument` names the argument in the error. */
export function decodeCursor(cursor: string, fingerprint: string, argument: string): number {
  const [cursorFingerprint, position, ...rest] = Buffer.from(cursor, 'base64url').toString().split(':');
  if (rest.length > 0 || position === undefined || !/^(0|[1-9]\d{0,8})$/.test(position)) {
    throw new BadUserInputError(argument, 'is not a cursor issued by this gateway');
  }
  if (cursorFingerprint !== fingerprint) {
    throw new BadUserInputError(argument, 'is a cursor of a different search; cursors are bound to their q and jurisdiction');
  }
  return Number(position);
}
