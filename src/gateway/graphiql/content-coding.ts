import Negotiator from 'negotiator';
import { CONTENT_ENCODINGS, type ContentEncoding } from './compressed-copies.js';

/**
 * negotiator 1.0's `preferred` option breaks ties between codings a client
 * accepts alike (browsers send `gzip, deflate, br, zstd`, all at q=1) in the
 * server's favour; @types/negotiator 0.6.5 predates it.
 */
interface EncodingNegotiator {
  encoding(available: readonly string[], options: { preferred: readonly string[] }): string | undefined;
}

const PREFERENCE = [...CONTENT_ENCODINGS, 'identity'];

/**
 * The coding to answer in, of those `available` and none: the client's
 * choice by its q-values, Brotli before gzip before none where it accepts
 * several alike. Undefined: none (also when the client refuses every coding,
 * identity included: an answer it may not read beats no answer).
 */
export function preferredEncoding(acceptEncoding: string | undefined, available: readonly ContentEncoding[]): ContentEncoding | undefined {
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as EncodingNegotiator;
  const chosen = negotiator.encoding([...available, 'identity'], { preferred: PREFERENCE });
  return available.find((encoding) => encoding === chosen);
}
