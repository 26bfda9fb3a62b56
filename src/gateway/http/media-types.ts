import { LRUCache } from 'lru-cache';

/** The media types Yoga answers GraphQL requests in. */
export const ANSWER_MEDIA_TYPES = ['application/graphql-response+json', 'application/json', 'text/event-stream', 'multipart/mixed'];
const ANSWER_TYPE_PAIRS = ANSWER_MEDIA_TYPES.map((answer) => answer.split('/'));

/** Distinct Accept headers whose verdict is remembered: clients send the same one on every request. */
export const ACCEPT_VERDICTS_KEPT = 256;

const acceptVerdicts = new LRUCache<string, boolean>({ max: ACCEPT_VERDICTS_KEPT });

/**
 * Whether any media type the Accept header asks for (in UTF-8, the only
 * charset served) is one Yoga answers in; read as Yoga reads it. Checked
 * before anything runs: Yoga itself finds out only after executing.
 */
export function acceptsAnAnswer(accept: string | undefined): boolean {
  const header = accept ?? '*/*';
  let verdict = acceptVerdicts.get(header);
  if (verdict === undefined) {
    verdict = readAccept(header);
    acceptVerdicts.set(header, verdict);
  }
  return verdict;
}

function readAccept(accept: string): boolean {
  const asked = accept.replace(/\s/g, '').toLowerCase().split(',');
  return asked.some((entry) => {
    const [mediaType = '', ...params] = entry.split(';');
    const charset = params.find((param) => param.startsWith('charset='));
    if (charset !== undefined && charset !== 'charset=utf-8') return false;
    const [type, subtype] = mediaType.split('/');
    return ANSWER_TYPE_PAIRS.some(
      ([answerType, answerSubtype]) => (type === '*' || type === answerType) && (subtype === '*' || subtype === answerSubtype),
    );
  });
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
  const mediaType = (contentType ?? '').split(',')[0]!.split(';')[0]!.trim().toLowerCase();
  return REQUEST_MEDIA_TYPES.includes(mediaType);
}
