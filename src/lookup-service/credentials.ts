import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClientCredentials } from './token-request.js';

export function randomCredentials(): ClientCredentials {
  return { clientId: `client_${randomBytes(8).toString('hex')}`, clientSecret: randomBytes(32).toString('base64url') };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares in constant time, as a real authorisation server must. */
export function credentialsMatch(expected: ClientCredentials, given: ClientCredentials): boolean {
  const idMatches = timingSafeEqual(digest(expected.clientId), digest(given.clientId));
  const secretMatches = timingSafeEqual(digest(expected.clientSecret), digest(given.clientSecret));
  return idMatches && secretMatches;
}
