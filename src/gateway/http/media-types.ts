import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';

/** The media types Yoga answers GraphQL requests in, the one to recommend first. */
export const ANSWER_MEDIA_TYPES = ['application/graphql-response+json', 'application/json', 'text/event-stream', 'multipart/mixed'];

/**
 * The same, as negotiation offers them: in UTF-8 only (so an Accept asking
 * for another charset matches none), and plain JSON first, where a tie goes:
 * a client accepting anything (`*​/*`, `application/*`, no Accept) gets
 * it, as Yoga gives it, and every client reads it.
 */
const OFFERED = ['application/json', 'application/graphql-response+json', 'text/event-stream', 'multipart/mixed'].map(
  (type) => `${type}; charset=utf-8`,
);

/**
 * Longest Accept header read. Negotiation costs time per media range and
 * type offered, so a header of many ranges costs the gateway CPU, and every
 * distinct header is negotiated once; real ones are far shorter than this.
 */
export const MAX_ACCEPT_LENGTH = 512;

/** Distinct Accept headers whose verdict is remembered: clients send the same one on every request. */
export const ACCEPT_VERDICTS_KEPT = 256;

/** The media type chosen for each Accept header, or false when it allows none. */
const acceptVerdicts = new LRUCache<string, string | false>({ max: ACCEPT_VERDICTS_KEPT });

/**
 * The media type to answer in: the one the Accept header prefers, q-values
 * and specificity weighed as RFC 9110 says (`application/json;q=0` refuses
 * JSON, `*​/*;q=0` everything), among those Yoga answers in; undefined when
 * it allows none. Checked before anything runs: Yoga itself finds out only
 * after executing. The header must be at most MAX_ACCEPT_LENGTH long.
 */
export function answerTypeFor(accept: string | undefined): string | undefined {
  const header = accept ?? '*/*';
  let verdict = acceptVerdicts.get(header);
  if (verdict === undefined) {
    const [preferred] = new Negotiator({ headers: { accept: header } }).mediaTypes(OFFERED);
    verdict = preferred === undefined ? false : preferred.slice(0, preferred.indexOf(';'));
    acceptVerdicts.set(header, verdict);
  }
  return verdict === false ? undefined : verdict;
}

/** The body types Yoga reads a POST in (multipart is turned off: no field takes an upload). */
export const REQUEST_MEDIA_TYPES = [
  'application/json',
  'application/graphql+json',
  'application/graphql',
  'application/x-www-form-urlencoded',
];

/** Whether Yoga can read a POST body of this Content-Type; it would answer 415 with no word of explanation. */
export function isReadableBody(contentType: string | undefined): boolean {
  // Nearly every client sends one of them exactly: found without taking the header apart.
  if (contentType !== undefined && REQUEST_MEDIA_TYPES.includes(contentType)) return true;
  const mediaType = (contentType ?? '').split(',')[0]!.split(';')[0]!.trim().toLowerCase();
  return REQUEST_MEDIA_TYPES.includes(mediaType);
}
