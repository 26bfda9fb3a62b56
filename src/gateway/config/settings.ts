import { type ApiKey, MIN_API_KEY_LENGTH } from '../access/api-keys.js';
import { MIN_JWT_SECRET_LENGTH } from '../access/jwt.js';
import { MIN_ADMIN_TOKEN_LENGTH } from '../admin/admin-server.js';
import { LOG_FORMATS, LOG_LEVELS } from '../logger.js';
import {
  apiKeys as apiKeyList,
  boolean,
  host,
  httpUrl,
  integer,
  jwksUrl,
  keyPrefix,
  manifests,
  oneOf,
  origins,
  pageParameter,
  type Read,
  ratio,
  redisUrl,
  type Setting,
  type SettingsOf,
  type SettingsOfAll,
  setting,
  text,
} from './kinds.js';

/**
 * Every setting of the gateway, declared once: its environment variable, its
 * kind of value (and so its bounds and problem lines), its default, whether
 * it is a secret, and one line for docs/configuration.md (`npm run
 * docs:config`). Grouped by the part of the gateway that uses them, each
 * group's values typed by `SettingsOf`; read in the order of SETTING_GROUPS
 * and of each group, which is the order of the problem lines. Checks of
 * several settings together live in checks.ts. One table, so it is long.
 */

const WEEK_MS = 7 * 24 * 3_600_000;

// The settings other settings' defaults follow from are named before their groups.

const nodeEnv = setting({
  env: 'NODE_ENV',
  kind: oneOf(['development', 'production', 'test']),
  default: 'development',
  doc: '`production` turns GraphiQL, introspection and field suggestions off and requires client access to be decided (see `ALLOW_ANONYMOUS`)',
});
const inProduction = (read: Read) => read(nodeEnv) === 'production';

const gatewayApiKeys = setting({
  env: 'GATEWAY_API_KEYS',
  kind: apiKeyList,
  default: [] as ApiKey[],
  defaultDoc: 'unset: no API keys',
  secret: true,
  reloads: true,
  doc: `clients send a key in \`x-api-key\`. Keys of at least ${MIN_API_KEY_LENGTH} characters; only their SHA-256 is kept, and a key presented is found by its SHA-256; the id names the client in logs and rate limits`,
});
const jwtIssuer = setting({
  env: 'JWT_ISSUER',
  kind: text,
  default: undefined,
  defaultDoc: 'unset: no bearer tokens',
  doc: 'required `iss` of bearer tokens (`Authorization: Bearer …`); setting any `JWT_*` turns JWT checking on',
});
const jwtAudience = setting({
  env: 'JWT_AUDIENCE',
  kind: text,
  default: undefined,
  defaultDoc: 'required with `JWT_ISSUER`',
  doc: 'required `aud` of bearer tokens',
});
const jwtJwksUrl = setting({
  env: 'JWT_JWKS_URL',
  kind: jwksUrl,
  default: undefined,
  defaultDoc: 'one of this and `JWT_SECRET`',
  doc: "the issuer's JSON Web Key Set; RS/PS/ES/EdDSA signatures, keys cached (10 min) and refetched on an unknown `kid` (at most every 30 s). A failed fetch (no connection, 5 s timeout, a status other than 200, a body over 256 KiB or without a `keys` array) holds fetching back for 1 s, doubling to 30 s; meanwhile tokens that need the keys get 503 `AUTH_UNAVAILABLE` at once",
});
const jwtSecret = setting({
  env: 'JWT_SECRET',
  kind: text,
  default: undefined,
  defaultDoc: 'one of this and `JWT_JWKS_URL`',
  secret: true,
  reloads: true,
  doc: `shared HS256 secret, at least ${MIN_JWT_SECRET_LENGTH} characters. Tokens must carry \`sub\` (a non-empty string) and \`exp\` (5 s clock tolerance)`,
});

const trustedDocuments = setting({
  env: 'TRUSTED_DOCUMENTS',
  kind: manifests,
  default: undefined,
  defaultDoc: 'unset: any operation runs',
  reloads: true,
  doc: 'trusted-documents manifests (each the `persisted-documents.json` the codegen client preset writes: `{"sha256:<hex>": "<document>"}`, at most 16 MiB), a folder standing for the `*.json` files in it (one per app); the documents of all are allowed; checked when read: every id must be its document\'s SHA-256, and an id found in two manifests must name the same document in both',
});

const otlpProtocols = oneOf(['http/protobuf', 'http/json', 'grpc']);
const otlpProtocol = setting({
  env: 'OTEL_EXPORTER_OTLP_PROTOCOL',
  kind: otlpProtocols,
  default: 'http/protobuf',
  doc: 'how spans are sent to the collector',
});
const tracesSampler = setting({
  env: 'OTEL_TRACES_SAMPLER',
  kind: oneOf(['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio']),
  default: 'parentbased_always_on',
  doc: 'which traces are kept',
});

/** Where the gateway listens and how it treats client connections. */
export const serverSettings = {
  host: setting({ env: 'HOST', kind: host, default: '127.0.0.1', doc: 'address to listen on (`0.0.0.0` for all interfaces)' }),
  port: setting({ env: 'PORT', kind: integer(0, 65_535), default: 4000, doc: 'port to listen on (`0`: any free port)' }),
  headersTimeoutMs: setting({
    env: 'HEADERS_TIMEOUT_MS',
    kind: integer(100, 600_000, 'ms'),
    default: 10_000,
    doc: 'time a client has to send its request headers; then it gets 408 `REQUEST_TIMEOUT` and the connection is closed (within a tenth of this, at most 1 s, later)',
  }),
  requestTimeoutMs: setting({
    env: 'REQUEST_TIMEOUT_MS',
    kind: integer(100, 3_600_000, 'ms'),
    default: 30_000,
    doc: 'time a client has to send its whole request, headers and body, counted from its start; at least `HEADERS_TIMEOUT_MS`; then 408 as above',
  }),
  maxConnections: setting({
    env: 'MAX_CONNECTIONS',
    kind: integer(1, 1_000_000),
    default: 1_024,
    doc: 'most client connections served at once (keep-alive ones included); a sixteenth more are accepted only to answer their request 503 `TOO_MANY_CONNECTIONS` (with `Retry-After`), any beyond are closed at once and counted in a warning',
  }),
  maxConnectionsPerAddress: setting({
    env: 'MAX_CONNECTIONS_PER_ADDRESS',
    kind: integer(0, 1_000_000),
    // A sixteenth of MAX_CONNECTIONS: a browser opens 6 per origin, so this leaves room for a few behind one NAT.
    default: 64,
    doc: 'of those, most served per client address (IPv6 addresses by their /64), so one client cannot take every connection; a sixteenth more are answered 503 `TOO_MANY_CONNECTIONS`, any beyond closed at once. Off with `TRUSTED_PROXY_COUNT` above 0, where every connection comes from a proxy (clients are then told apart by the rate limit); `0` turns it off',
  }),
  refusalLingerMs: setting({
    env: 'REFUSAL_LINGER_MS',
    kind: integer(0, 60_000, 'ms'),
    default: 3_000,
    doc: 'after refusing a request whose body is still arriving (401, 413 before the body, …), how long the rest of it is read and thrown away before the connection closes, so that a client still writing gets the refusal rather than a reset; `0`: close at once. A 408 or 400 for a request Node could not read closes its connection this long after it is sent, whether or not the client has closed its side',
  }),
  refusalLingerBytes: setting({
    env: 'REFUSAL_LINGER_BYTES',
    kind: integer(0, 64 * 1024 * 1024, 'bytes'),
    default: 8 * 1024 * 1024,
    doc: 'most bytes of such a body read and thrown away; whichever of the two bounds comes first closes the connection',
  }),
  idleSocketTimeoutMs: setting({
    env: 'IDLE_SOCKET_TIMEOUT_MS',
    kind: integer(100, 3_600_000, 'ms'),
    default: 15_000,
    doc: 'a connection on which no byte moves either way for this long is closed, unless an answer on it is still being worked out (a client that stops reading its answer is let go, with its connection slot and the answers waiting for it)',
  }),
  responseWriteTimeoutMs: setting({
    env: 'RESPONSE_WRITE_TIMEOUT_MS',
    kind: integer(100, 3_600_000, 'ms'),
    // Long enough for a full page of the richest answer to reach a client on a slow mobile link.
    default: 30_000,
    doc: 'time a client has to take in one complete answer; one that reads too slowly (a byte now and then, never idle) is disconnected',
  }),
};

/** How the gateway reaches the lookup service and how it bears with its failures. */
export const upstreamSettings = {
  upstreamUrl: setting({
    env: 'UPSTREAM_URL',
    kind: httpUrl,
    default: undefined,
    defaultDoc: 'unset: the embedded lookup service',
    doc: 'base URL of the Company Lookup Service (a path prefix is kept)',
  }),
  upstreamClientId: setting({
    env: 'UPSTREAM_CLIENT_ID',
    kind: text,
    default: undefined,
    defaultDoc: 'required with `UPSTREAM_URL`',
    doc: 'OAuth2 client id',
  }),
  upstreamClientSecret: setting({
    env: 'UPSTREAM_CLIENT_SECRET',
    kind: text,
    default: undefined,
    defaultDoc: 'required with `UPSTREAM_URL`',
    secret: true,
    doc: 'OAuth2 client secret',
  }),
  upstreamPageParam: setting({
    env: 'UPSTREAM_PAGE_PARAM',
    kind: pageParameter,
    default: undefined,
    defaultDoc: 'unset: the upstream does not page',
    doc: "name of the upstream's 1-based page parameter (not `q`, `jurisdiction` or `pageSize`); when set, the gateway fetches later windows of 50 with it",
  }),
  upstreamConnections: setting({
    env: 'UPSTREAM_CONNECTIONS',
    kind: integer(1, 1_024),
    default: 10,
    doc: 'most connections to the upstream',
  }),
  upstreamConnectTimeoutMs: setting({
    env: 'UPSTREAM_CONNECT_TIMEOUT_MS',
    kind: integer(1, 600_000, 'ms'),
    default: 2_000,
    doc: 'time to open a connection to the upstream',
  }),
  upstreamHeadersTimeoutMs: setting({
    env: 'UPSTREAM_HEADERS_TIMEOUT_MS',
    kind: integer(1, 600_000, 'ms'),
    default: 5_000,
    doc: 'time from request to response headers',
  }),
  upstreamBodyTimeoutMs: setting({
    env: 'UPSTREAM_BODY_TIMEOUT_MS',
    kind: integer(1, 600_000, 'ms'),
    default: 5_000,
    doc: 'longest pause while reading a response body',
  }),
  requestDeadlineMs: setting({
    env: 'REQUEST_DEADLINE_MS',
    kind: integer(1, 600_000, 'ms'),
    default: 10_000,
    doc: 'how long one GraphQL request waits for the upstream (token, queue, attempts and backoffs included) before it answers without it: stale data where there is some, otherwise `UPSTREAM_TIMEOUT`; also bounds each shared upstream fetch',
  }),
  upstreamMaxInFlight: setting({
    env: 'UPSTREAM_MAX_IN_FLIGHT',
    kind: integer(1, 1_024),
    default: 8,
    doc: 'most upstream calls in flight at once; the rest wait in arrival order within their deadline',
  }),
  upstreamRetries: setting({
    env: 'UPSTREAM_RETRIES',
    kind: integer(0, 10),
    default: 2,
    doc: 'retries of a search after a 5xx, a refused or reset connection or a 429 (never after a 400, a refused credential, a bad body or a timeout); `0` turns retrying off',
  }),
  upstreamRetryBaseMs: setting({
    env: 'UPSTREAM_RETRY_BASE_MS',
    kind: integer(1, 60_000, 'ms'),
    default: 200,
    doc: 'first backoff ceiling after a 5xx or connection failure, doubling each retry, with full jitter; a 429 waits its `Retry-After` (at most `UPSTREAM_MAX_RETRY_AFTER_MS`), or from 1 s when it names none',
  }),
  upstreamBreakerFailures: setting({
    env: 'UPSTREAM_BREAKER_FAILURES',
    kind: integer(1, 1_000),
    default: 5,
    doc: 'upstream failures in a row (5xx, 429, timeouts, connection failures) that open the circuit breaker',
  }),
  upstreamBreakerCooldownMs: setting({
    env: 'UPSTREAM_BREAKER_COOLDOWN_MS',
    kind: integer(1, 3_600_000, 'ms'),
    default: 10_000,
    doc: 'how long an open circuit answers at once without calling the upstream (longer if a 429 or 5xx asked for more with `Retry-After`, up to `UPSTREAM_MAX_RETRY_AFTER_MS`); then one probe call decides',
  }),
  upstreamMaxRetryAfterMs: setting({
    env: 'UPSTREAM_MAX_RETRY_AFTER_MS',
    kind: integer(0, 3_600_000, 'ms'),
    default: 60_000,
    doc: "the longest wait a `Retry-After` from the upstream (seconds or an HTTP date, on a 429 or 5xx, from search or token endpoint) can ask for; longer ones are cut to this, for retries and for the circuit breaker's cool-down. `0` ignores `Retry-After`",
  }),
  tokenRefusedCooldownMs: setting({
    env: 'TOKEN_REFUSED_COOLDOWN_MS',
    kind: integer(0, 3_600_000, 'ms'),
    default: 30_000,
    doc: 'after the upstream refuses the client credentials, how long every request gets `UPSTREAM_AUTH_FAILED` without another token request',
  }),
  upstreamMaxCallsPerMinute: setting({
    env: 'UPSTREAM_MAX_CALLS_PER_MINUTE',
    kind: integer(1, 10_000_000),
    default: undefined,
    defaultDoc: 'unset: no budget',
    doc: "the most calls to the upstream per minute, token calls included, as the partner agreement allows: at most this many at once, refilled at this rate. With `REDIS_URL`, one budget for the whole fleet (each instance's own while Redis is away); without it, per instance. Background refreshes give way first (they stop while less than a fifth is left). A request that would exceed it gets stale data with a `STALE_DATA` warning where some is cached, otherwise `UPSTREAM_RATE_LIMITED`, without an upstream call",
  }),
  upstreamTokenDefaultLifetimeMs: setting({
    env: 'UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS',
    kind: integer(1_000, 86_400_000, 'ms'),
    default: 300_000,
    doc: 'how long a service token is used when the token answer has no usable `expires_in` (RFC 6749 makes it optional); a search answered 401 renews it sooner. Must lie between the two bounds below',
  }),
  upstreamTokenMinLifetimeMs: setting({
    env: 'UPSTREAM_TOKEN_MIN_LIFETIME_MS',
    kind: integer(1_000, 86_400_000, 'ms'),
    default: 10_000,
    doc: 'shortest lifetime a token is given, whatever its `expires_in`: a tiny one cannot make the gateway renew on every search',
  }),
  upstreamTokenMaxLifetimeMs: setting({
    env: 'UPSTREAM_TOKEN_MAX_LIFETIME_MS',
    kind: integer(1_000, 86_400_000, 'ms'),
    default: 3_600_000,
    doc: 'longest lifetime a token is given, whatever its `expires_in`: a huge one cannot keep a token for ever',
  }),
};

/** The search-window cache and the response cache, which share one byte bound. */
export const cacheSettings = {
  cacheTtlMs: setting({ env: 'CACHE_TTL_MS', kind: integer(1, WEEK_MS, 'ms'), default: 300_000, doc: 'how long a search window is fresh' }),
  cacheStaleWhileRevalidateMs: setting({
    env: 'CACHE_STALE_WHILE_REVALIDATE_MS',
    kind: integer(0, WEEK_MS, 'ms'),
    default: 60_000,
    doc: 'how long past its TTL a window is still served (marked `stale: true`) while one background call refreshes it',
  }),
  cacheStaleIfErrorMs: setting({
    env: 'CACHE_STALE_IF_ERROR_MS',
    kind: integer(0, WEEK_MS, 'ms'),
    default: 3_600_000,
    doc: 'how long past its TTL a window is still served (marked `stale: true`, with a `STALE_DATA` warning) when the upstream fails, times out or is held back by the circuit breaker; `0` turns it off',
  }),
  cacheMaxBytes: setting({
    env: 'CACHE_MAX_BYTES',
    kind: integer(1_024, Number.MAX_SAFE_INTEGER, 'bytes'),
    default: 64 * 1024 * 1024,
    doc: "bound of all caches together: half for serialized answers (with `RESPONSE_CACHE`), an eighth for parsed GraphQL documents, the rest for upstream windows. Windows and answers are held as bytes, and each counts exactly its bytes plus one fixed charge for what holds them (its Buffer, its key, the cache's entry; *What the caches count* in docs/behaviour.md); a parsed document 200 bytes per character of its text, above what the densest valid document holds (a document that fails validation is not kept). Keep it above 16 MiB or so: the card query (`test/operations/search-companies.graphql`, about 1,000 characters) counts about 200 KB, and a document that does not fit the eighth is parsed and validated on every request",
  }),
  responseCache: setting({
    env: 'RESPONSE_CACHE',
    kind: boolean,
    default: true,
    doc: 'reuse the serialized answer to a request repeated byte for byte while its data is fresh (see *Response cache* in docs/behaviour.md); `false` runs every request through GraphQL',
  }),
  cdnTagHeader: setting({
    env: 'CDN_TAG_HEADER',
    kind: oneOf(['Cache-Tag', 'Surrogate-Key', 'none']),
    default: 'Cache-Tag',
    doc: "the header that carries, on each GET answer a shared cache may keep, the tags a CDN purges by: the jurisdiction, the search and each company number (`Cache-Tag`, comma-separated, for Cloudflare, Akamai and Apollo Router's users; `Surrogate-Key`, space-separated, for Fastly; Varnish's xkey reads either). Over 4 KiB of tags, the answer is `private` instead. `none` sends no tags (see *HTTP caching* in docs/behaviour.md)",
  }),
};

/** Development or production: what several defaults follow from. */
export const modeSettings = { nodeEnv };

/** Who may call the gateway: API keys, bearer tokens, anonymous clients. */
export const accessSettings = {
  apiKeys: gatewayApiKeys,
  jwtIssuer,
  jwtAudience,
  jwtJwksUrl,
  jwtSecret,
  allowAnonymous: setting({
    env: 'ALLOW_ANONYMOUS',
    kind: boolean,
    default: (read) =>
      !inProduction(read) &&
      read(gatewayApiKeys).length === 0 &&
      [jwtIssuer, jwtAudience, jwtJwksUrl, jwtSecret].every((jwt: Setting<unknown>) => read(jwt) === undefined),
    defaultDoc: '`true` in development without keys or JWT; `false` otherwise',
    doc: 'let requests without credentials through (rate limited by IP address, IPv6 addresses by their /64). In production it must be set to `true` when neither keys nor JWT are configured',
  }),
};

/** What Yoga serves besides operations (GraphiQL, introspection) and which operations it runs. */
export const graphqlSettings = {
  trustedDocuments,
  allowArbitraryOperations: setting({
    env: 'ALLOW_ARBITRARY_OPERATIONS',
    kind: boolean,
    default: (read) => read(trustedDocuments) === undefined,
    defaultDoc: '`true`; `false` with `TRUSTED_DOCUMENTS`',
    doc: 'also execute operations sent as `query`, not only trusted documents sent as `documentId`',
  }),
  graphiql: setting({
    env: 'GRAPHIQL',
    kind: boolean,
    default: (read) => !inProduction(read),
    defaultDoc: '`true`; `false` in production',
    doc: 'serve GraphiQL at `/graphql` to browsers; never where only trusted documents run (`ALLOW_ARBITRARY_OPERATIONS=false`): a browser gets 404 `GRAPHIQL_UNAVAILABLE` there (see *GraphiQL* in docs/behaviour.md)',
  }),
  introspection: setting({
    env: 'INTROSPECTION',
    kind: boolean,
    default: (read) => !inProduction(read),
    defaultDoc: '`true`; `false` in production',
    doc: 'answer `__schema` and `__type`. Off, `__schema` is refused and `__type(name:)` answers null for every name (`__typename` always works)',
  }),
};

/** How much one request may ask for: its body, its document, the upstream searches it starts, its answer. */
export const requestLimitSettings = {
  maxBodyBytes: setting({
    env: 'MAX_BODY_BYTES',
    kind: integer(1_024, 100 * 1024 * 1024, 'bytes'),
    default: 102_400,
    doc: 'largest request body; larger ones get 413',
  }),
  maxDocumentLength: setting({
    env: 'MAX_DOCUMENT_LENGTH',
    kind: integer(100, 10_000_000),
    default: 10_000,
    doc: 'longest GraphQL document, in characters',
  }),
  maxDepth: setting({
    env: 'MAX_DEPTH',
    kind: integer(1, 1_000),
    default: 10,
    doc: 'deepest selection nesting (fragments do not add depth; introspection is not counted)',
  }),
  maxAliases: setting({
    env: 'MAX_ALIASES',
    kind: integer(0, 1_000),
    default: 15,
    doc: 'most aliases in an operation (aliases of `__typename` aside)',
  }),
  maxDirectives: setting({ env: 'MAX_DIRECTIVES', kind: integer(0, 1_000), default: 20, doc: 'most directives in an operation' }),
  maxTokens: setting({ env: 'MAX_TOKENS', kind: integer(10, 1_000_000), default: 1_000, doc: 'most lexical tokens in a document' }),
  maxExpandedSelections: setting({
    env: 'MAX_EXPANDED_SELECTIONS',
    kind: integer(1, 1_000_000),
    // Far above every operation in test/operations, and twice what MAX_TOKENS lets a document write out without fragments,
    // so it bites only where fragments are spread over and over.
    default: 2_000,
    doc: 'most selections (fields, inline fragments and fragment spreads) a document may hold once each fragment is written out wherever it is spread, fragments no operation uses included; counted in one pass before validation, so a short document whose fragments spread one another over and over is refused at once with `OPERATION_TOO_COMPLEX`',
  }),
  maxUpstreamSearches: setting({
    env: 'MAX_UPSTREAM_SEARCHES',
    kind: integer(1, 1_000),
    default: 5,
    doc: 'most distinct upstream searches one operation may start: each `searchCompanies`, `company` and `node` field counts once per distinct set of arguments, variables applied (with `UPSTREAM_PAGE_PARAM`, a page deep into a search may read two or three windows of 50 for its one field, and a `last` page one more when the upstream ends before its total)',
  }),
  maxResultFields: setting({
    env: 'MAX_RESULT_FIELDS',
    kind: integer(1, 10_000_000),
    // Admits two full pages of the company card (test/operations/search-companies.graphql) in one operation, and refuses
    // fifteen aliases of one page.
    default: 10_000,
    doc: "most fields an operation's answer could hold, counted before it runs: each field selected once per entry of the lists above it (a page of `searchCompanies` holds up to its `pageSize`, `first` or `last`, 20 by default; a company's `previousNames` up to 20); an operation over the limit is refused with `OPERATION_TOO_COMPLEX`, its count in `extensions.resultFields`. Introspection fields count once",
  }),
  maxResponseBytes: setting({
    env: 'MAX_RESPONSE_BYTES',
    kind: integer(16 * 1024, 64 * 1024 * 1024, 'bytes'),
    // Room for any answer a client asks for in earnest (the company card at a page of 50 is far smaller), far below
    // what one long upstream string repeated under every alias makes of an answer.
    default: 1024 * 1024,
    doc: "most bytes of JSON one request's answer may hold, errors and warnings included (a batch's answers together), counted once its operation has run and before anything is serialized (counting stops at the limit); a larger answer is refused whole with `RESPONSE_TOO_LARGE`. It also bounds what clients that do not read their answers can make the gateway hold: 32 times this in all (answers written and not yet taken by the network, queued pipelined answers included), past which the connections holding the most are closed, each with a warning",
  }),
  batchingLimit: setting({
    env: 'BATCHING_LIMIT',
    kind: integer(0, 100),
    default: 0,
    defaultDoc: '`0`: batching off',
    doc: "most operations in one batched request (an array body); each operation takes one request from the client's rate limit",
  }),
  searchMaxQueryLength: setting({
    env: 'SEARCH_MAX_QUERY_LENGTH',
    kind: integer(1, 10_000),
    default: 200,
    doc: 'longest `q` (and `companyNumber`) accepted, in UTF-16 code units after trimming and collapsing inner whitespace',
  }),
};

/** Which other sites' pages may read answers. */
export const corsSettings = {
  corsAllowedOrigins: setting({
    env: 'CORS_ALLOWED_ORIGINS',
    kind: origins,
    default: [] as string[],
    defaultDoc: 'unset: no cross-origin reads',
    doc: 'origins (`https://app.example.com`) browsers may call from, or `*` for any',
  }),
};

/** How often one client may ask, and which address an anonymous client is counted under. */
export const rateLimitSettings = {
  rateLimitPerMinute: setting({
    env: 'RATE_LIMIT_PER_MINUTE',
    kind: integer(0, 6_000_000),
    default: 600,
    doc: "sustained requests per minute per client (API key id, token subject, or IP for anonymous clients and failed attempts; IPv6 by /64; failed attempts also by the connection's peer where `X-Forwarded-For` named another address); each operation of a batched request counts as one request; `0` turns rate limiting off",
  }),
  rateLimitBurst: setting({
    env: 'RATE_LIMIT_BURST',
    kind: integer(1, 1_000_000),
    default: 100,
    doc: 'requests a client may make at once before the sustained rate applies; with rate limiting on, also the most operations one batch may hold',
  }),
  rateLimitMaxClients: setting({
    env: 'RATE_LIMIT_MAX_CLIENTS',
    kind: integer(1, 10_000_000),
    default: 10_000,
    doc: 'clients tracked at most (least recently seen forgotten first), bounding memory',
  }),
  trustedProxyCount: setting({
    env: 'TRUSTED_PROXY_COUNT',
    kind: integer(0, 10),
    default: 0,
    doc: "reverse proxies in front of the gateway that append to `X-Forwarded-For`; the client IP is taken that many hops from the right (the socket's address if that entry is not an IP address). `0`: the socket's address",
  }),
};

/** Where instances of one fleet share their upstream state; unset, each instance keeps its own. */
export const sharedStateSettings = {
  redisUrl: setting({
    env: 'REDIS_URL',
    kind: redisUrl,
    default: undefined,
    defaultDoc: 'unset: nothing shared',
    secret: true,
    doc: 'the Redis (7 or later) that instances of one fleet share their upstream state through, user and password in it: one node, `redis://gateway:PASSWORD@redis.internal:6379/0` (a database number as its only path); a Redis Cluster, `redis-cluster://gateway:PASSWORD@redis-0.internal:6379,redis-1.internal:6379` (any of its nodes: the rest are discovered); or the sentinels of a master, `redis-sentinel://gateway:PASSWORD@sentinel-0.internal:26379,sentinel-1.internal:26379/mymaster` (the master is asked of them, and followed across a failover). `rediss://`, `rediss-cluster://` and `rediss-sentinel://` use TLS. Unset, every instance keeps its own state and node-redis is not even loaded. See *A fleet on Redis* and *Redis topologies* in docs/operations.md',
  }),
  redisSentinelPassword: setting({
    env: 'REDIS_SENTINEL_PASSWORD',
    kind: text,
    default: undefined,
    defaultDoc: 'unset: the sentinels are asked without a password',
    secret: true,
    doc: "with `redis-sentinel://`, the sentinels' own password (their `requirepass`), which the password in `REDIS_URL` (the master's and replicas') is not; set it to the same value where they share one",
  }),
  redisKeyPrefix: setting({
    env: 'REDIS_KEY_PREFIX',
    kind: keyPrefix,
    default: 'csg:',
    doc: 'put before every key the gateway writes, so that several fleets can share one Redis',
  }),
  redisCommandTimeoutMs: setting({
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    kind: integer(1, 10_000, 'ms'),
    // Chosen from the answers Redis gives on a loaded 2-core host (docs/operations.md, *The REDIS_COMMAND_TIMEOUT_MS trade-off*): late ones are misses, not outages.
    default: 250,
    doc: "the gateway's own deadline on each Redis call (node-redis holds none against a hung server); a call without an answer by then is a miss: a claim on a window or the token is asked again, the client's rate limit and the call budget are decided by this instance alone. Redis is taken to be away on a failed connection, or when no call has been answered within this deadline for four times as long (at least 1 s), late answers not counting: the instance goes on alone, makes no Redis call until a probe (every 500 ms) finds every call it needs answered in time, and logs the outage once and its end once",
  }),
};

/** What operators see of the gateway apart from its answers: metrics, and how it leaves a load balancer. */
export const observabilitySettings = {
  metricsPort: setting({
    env: 'METRICS_PORT',
    kind: integer(0, 65_535),
    default: undefined,
    defaultDoc: 'unset: no metrics server',
    doc: 'port of the Prometheus metrics server, `GET /metrics` (see *Metrics* in docs/operations.md); never the public port (`0`: any free port). Unset, no metrics are kept',
  }),
  metricsHost: setting({
    env: 'METRICS_HOST',
    kind: host,
    default: '127.0.0.1',
    doc: 'address the metrics server listens on (`0.0.0.0` for a scraper on another host)',
  }),
  shutdownDrainDelayMs: setting({
    env: 'SHUTDOWN_DRAIN_DELAY_MS',
    kind: integer(0, 600_000, 'ms'),
    // In production, long enough for a load balancer probing every 2 s to see /ready fail twice; elsewhere a stop is not held up.
    default: (read) => (inProduction(read) ? 5_000 : 0),
    defaultDoc: '`0`; `5000` in production',
    doc: "after `SIGTERM`/`SIGINT`, how long `/ready` answers 503 while requests are still served, so a load balancer stops sending traffic before the gateway stops accepting connections (see *Probes* in docs/operations.md); set it above the probe's period times its failure threshold",
  }),
};

/** The admin server: purges, for operators only. */
export const adminSettings = {
  adminPort: setting({
    env: 'ADMIN_PORT',
    kind: integer(0, 65_535),
    default: undefined,
    defaultDoc: 'unset: no admin server',
    doc: 'port of the admin server, `POST /purge` with `Authorization: Bearer <ADMIN_TOKEN>` (see *Purging cached data* in docs/operations.md); never the public port (`0`: any free port)',
  }),
  adminHost: setting({
    env: 'ADMIN_HOST',
    kind: host,
    default: '127.0.0.1',
    doc: 'address the admin server listens on; keep it off networks clients reach',
  }),
  adminToken: setting({
    env: 'ADMIN_TOKEN',
    kind: text,
    default: undefined,
    defaultDoc: 'required with `ADMIN_PORT`',
    secret: true,
    doc: `the bearer token every admin request must carry, at least ${MIN_ADMIN_TOKEN_LENGTH} characters (\`openssl rand -base64 32\`); compared by its SHA-256 in constant time, never logged. \`npm run purge\` reads it as the gateway does`,
  }),
};

/** The gateway's own log. */
export const logSettings = {
  logLevel: setting({
    env: 'LOG_LEVEL',
    kind: oneOf(LOG_LEVELS),
    default: 'info',
    doc: "the least severe lines written, on stdout. JSON lines are written in batches of 12 KiB or at least once a second, and in full at exit; while stdout takes nothing, at most 4 MiB of lines wait, later ones are dropped, and a warning says how many once it takes lines again. A request's line logs at most 200 characters of its path",
  }),
  logFormat: setting({
    env: 'LOG_FORMAT',
    kind: oneOf(['auto', ...LOG_FORMATS]),
    default: 'auto',
    doc: '`json`: one JSON object per line, for a log collector; `pretty`: one readable line per entry (time, level, message, then its fields), for a person; `auto`: `pretty` where stdout is a terminal, `json` elsewhere',
  }),
};

/**
 * Tracing, off unless an OTLP endpoint is set: a gateway nobody asked to trace
 * loads no SDK. The tracing SDK reads these variables itself; they are checked
 * here, so that a typo stops the start with a precise line rather than leaving
 * the SDK to fall back on a warning nobody reads.
 */
export const tracingSettings = {
  otelSdkDisabled: setting({
    env: 'OTEL_SDK_DISABLED',
    kind: boolean,
    default: false,
    doc: '`true` keeps tracing off whatever else is set',
  }),
  otelTracesExporter: setting({
    env: 'OTEL_TRACES_EXPORTER',
    kind: oneOf(['otlp', 'none']),
    default: 'otlp',
    doc: '`none` keeps tracing off whatever the endpoint says',
  }),
  otelExporterOtlpEndpoint: setting({
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    kind: httpUrl,
    default: undefined,
    defaultDoc: 'unset: tracing off',
    doc: 'base URL of an OTLP collector (`http://127.0.0.1:4318`; for `grpc`, `http://127.0.0.1:4317`); setting it (or the next) turns tracing on, see *Tracing* in docs/operations.md',
  }),
  otelExporterOtlpTracesEndpoint: setting({
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    kind: httpUrl,
    default: undefined,
    defaultDoc: 'unset',
    doc: 'full URL traces are sent to (`http://127.0.0.1:4318/v1/traces`), instead of the base URL above',
  }),
  otelExporterOtlpProtocol: otlpProtocol,
  otelExporterOtlpTracesProtocol: setting({
    env: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    kind: otlpProtocols,
    default: (read) => read(otlpProtocol),
    defaultDoc: '`OTEL_EXPORTER_OTLP_PROTOCOL`',
    doc: 'the same, for traces alone',
  }),
  otelTracesSampler: tracesSampler,
  otelTracesSamplerArg: setting({
    env: 'OTEL_TRACES_SAMPLER_ARG',
    kind: ratio,
    default: 1,
    onlyIf: (read) => read(tracesSampler).endsWith('traceidratio'),
    doc: 'the ratio of traces kept by the `traceidratio` samplers (ignored by the others)',
  }),
  otelServiceName: setting({ env: 'OTEL_SERVICE_NAME', kind: text, default: 'company-search-gateway', doc: '`service.name` of the spans' }),
  otelRecordSearchTerms: setting({
    env: 'OTEL_RECORD_SEARCH_TERMS',
    kind: boolean,
    default: false,
    doc: "`true` lets spans hold what clients search for (`q`, in the resolver's span and the upstream call's URL); off, it is replaced by `REDACTED`",
  }),
};

/** Every group, with the title the reference gives it, in the order settings are read and documented. */
export const SETTING_GROUPS = [
  { title: 'Listening and client connections', settings: serverSettings },
  { title: 'The upstream', settings: upstreamSettings },
  { title: 'Caches', settings: cacheSettings },
  { title: 'Mode', settings: modeSettings },
  { title: 'Client access', settings: accessSettings },
  { title: 'GraphQL', settings: graphqlSettings },
  { title: 'Request limits', settings: requestLimitSettings },
  { title: 'Cross-origin requests', settings: corsSettings },
  { title: 'Rate limits', settings: rateLimitSettings },
  { title: 'A fleet on one Redis', settings: sharedStateSettings },
  { title: 'Metrics and shutdown', settings: observabilitySettings },
  { title: 'Administration', settings: adminSettings },
  { title: 'Logs', settings: logSettings },
  { title: 'Tracing', settings: tracingSettings },
] as const;

/** Every setting's value, by the name the configuration gives it. */
export type Settings = SettingsOfAll<(typeof SETTING_GROUPS)[number]['settings']>;

// The groups the rest of the gateway takes by themselves.
export type UpstreamSettings = SettingsOf<typeof upstreamSettings>;
export type CacheSettings = SettingsOf<typeof cacheSettings>;
export type GraphqlSettings = SettingsOf<typeof graphqlSettings>;
export type RequestLimitSettings = SettingsOf<typeof requestLimitSettings>;
export type SharedStateSettings = SettingsOf<typeof sharedStateSettings>;
export type AdminSettings = SettingsOf<typeof adminSettings>;
