import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClientCredentials } from './token-request.js';

export function randomCredentials(): ClientCredentials {
  return { clientId: `client_${randomBytes(8).toString('hex')}`, clientSecret: randomBytes(32).toString('base64url') };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export type CredentialsCheck = (given: ClientCredentials) => boolean;

/**
 * Compares in constant time, as a real authorisation server must; digests of
 * equal length make that possible whatever the lengths given. The expected
 * digests are computed once, when the service starts.
 */
export function credentialsCheck(expected: ClientCredentials): CredentialsCheck {
  const idDigest = digest(expected.clientId);
  const secretDigest = digest(expected.clientSecret);
  return (given) => {
    const idMatches = timingSafeEqual(idDigest, digest(given.clientId));
    const secretMatches = timingSafeEqual(secretDigest, digest(given.clientSecret));
    return idMatches && secretMatches;
  };
}
