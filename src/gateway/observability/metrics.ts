import { collectDefaultMetrics, Registry } from 'prom-client';
import { ERROR_CODES } from '../../errors/codes.js';
import type {
  CacheLookupResult,
  HoldReason,
  TokenRenewalResult,
  TokenRenewalTrigger,
  UpstreamCallOutcome,
  UpstreamObserver,
  UpstreamStatusClass,
} from '../../upstream/observer.js';
import { SEARCH_ENDPOINT } from '../../upstream/search-call.js';
import { TOKEN_ENDPOINT } from '../../upstream/token-request.js';
import { CounterFamily, HistogramFamily } from './instruments.js';
import { type MetricLimits, type MetricSources, registerGauges } from './gauges.js';
import type { RequestOutcome } from './observed-response.js';

const PREFIX = 'csg_';
const OUTCOMES: readonly RequestOutcome[] = ['response_cache', 'graphql', 'refused', 'other'];
/** Every code a client can be answered with; anything else counts as `other`. */
const CODES = [...Object.keys(ERROR_CODES), 'other'];
/** The codes whose requests the availability SLO counts as failed (the catalogue's `serviceFailure`). */
export const SERVICE_FAILURE_CODES: ReadonlySet<string> = new Set(
  Object.entries(ERROR_CODES)
    .filter(([, entry]) => 'serviceFailure' in entry && entry.serviceFailure)
    .map(([code]) => code),
);
const ENDPOINTS = [SEARCH_ENDPOINT, TOKEN_ENDPOINT];
const STATUS_CLASSES: readonly UpstreamStatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'none'];
const CALL_OUTCOMES: readonly UpstreamCallOutcome[] = ['success', 'http_error', 'bad_response', 'timeout', 'connection_error', 'error'];
const HOLD_REASONS: readonly HoldReason[] = ['circuit_open', 'rate_limited', 'budget_spent'];
const LOOKUP_RESULTS: readonly (CacheLookupResult | 'hit')[] = [
  'fresh',
  'stale_while_revalidate',
  'stale_if_error',
  'miss',
  'joined',
  'hit',
];
const TRIGGERS: readonly TokenRenewalTrigger[] = ['initial', 'early', 'expired', 'refused'];
const RENEWAL_RESULTS: readonly TokenRenewalResult[] = ['success', 'credentials_refused', 'failure'];
export const GRAPHQL_PHASES = ['parse', 'validate', 'execute'] as const;
export type GraphqlPhase = (typeof GRAPHQL_PHASES)[number];
export type CacheLevel = 'response' | 'upstream_window';
export type ClientKind = 'api-key' | 'jwt' | 'anonymous';

const REQUEST_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SLOT_WAIT_SECONDS = [0, 0.001, 0.005, 0.025, 0.1, 0.5, 1, 5];
const PHASE_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5];

/**
 * Every metric the gateway keeps, in a registry of its own. Events increment
 * cells made up front (instruments.ts): the hot path does a few map lookups
 * and additions, never builds a label set. Gauges read the state they show
 * when scraped. Label values are the gateway's own constants, the catalogue's
 * codes and the configured API key ids, never anything a client sends.
 */
/** The api_key of keys a reload added since the start: label values are fixed when the metrics are made (an id has no spaces). */
export const ADDED_KEY = 'added since start';

export class GatewayMetrics implements UpstreamObserver {
  readonly registry = new Registry();
  readonly #requests: CounterFamily;
  readonly #failed: CounterFamily;
  readonly #refusals: CounterFamily;
  readonly #requestSeconds: HistogramFamily;
  readonly #phaseSeconds: HistogramFamily;
  readonly #graphqlErrors: CounterFamily;
  readonly #upstreamCalls: CounterFamily;
  readonly #upstreamSeconds: HistogramFamily;
  readonly #retries: CounterFamily;
  readonly #slotWait: HistogramFamily;
  readonly #heldBack: CounterFamily;
  readonly #lookups: CounterFamily;
  readonly #renewals: CounterFamily;
  readonly #rateLimited: CounterFamily;
  readonly #apiKeyIds: ReadonlySet<string>;
  #sources: MetricSources | undefined;

  constructor(apiKeyIds: readonly string[], limits: MetricLimits) {
    const r = this.registry;
    this.#apiKeyIds = new Set(apiKeyIds);
    this.#requests = new CounterFamily(
      r,
      `${PREFIX}http_requests_total`,
      'HTTP requests answered, by outcome: from the response cache, by GraphQL, refused in front of GraphQL, or other (health, readiness, GraphiQL, CORS preflight).',
      [['outcome', OUTCOMES]],
    );
    this.#failed = new CounterFamily(
      r,
      `${PREFIX}http_requests_failed_total`,
      "Requests the gateway or the upstream failed, not the client: a GraphQL answer holding an error of such a code (graphql), or a refusal with one (refused). The availability SLO's bad events.",
      [['outcome', ['graphql', 'refused']]],
    );
    this.#refusals = new CounterFamily(
      r,
      `${PREFIX}http_refusals_total`,
      'HTTP requests refused in front of GraphQL (and requests Node could not read), by error code.',
      [['code', CODES]],
      { zeroes: false },
    );
    this.#requestSeconds = new HistogramFamily(
      r,
      `${PREFIX}http_request_duration_seconds`,
      "Time from a request's headers to the last byte of its answer handed to the network, by outcome.",
      REQUEST_SECONDS,
      [['outcome', OUTCOMES]],
    );
    this.#phaseSeconds = new HistogramFamily(
      r,
      `${PREFIX}graphql_phase_duration_seconds`,
      'Time GraphQL spent in each phase of an operation (parse and validate run only for documents not already cached).',
      PHASE_SECONDS,
      [['phase', GRAPHQL_PHASES]],
    );
    this.#graphqlErrors = new CounterFamily(r, `${PREFIX}graphql_errors_total`, 'Errors in GraphQL answers, by code.', [['code', CODES]], {
      zeroes: false,
    });
    this.#upstreamCalls = new CounterFamily(
      r,
      `${PREFIX}upstream_calls_total`,
      'HTTP calls to the lookup service, by endpoint, status class (none: no answer) and outcome.',
      [
        ['endpoint', ENDPOINTS],
        ['status_class', STATUS_CLASSES],
        ['outcome', CALL_OUTCOMES],
      ],
    );
    this.#upstreamSeconds = new HistogramFamily(
      r,
      `${PREFIX}upstream_call_duration_seconds`,
      'Time of one call to the lookup service, from its slot to its answer read, by endpoint.',
      UPSTREAM_SECONDS,
      [['endpoint', ENDPOINTS]],
    );
    this.#retries = new CounterFamily(
      r,
      `${PREFIX}upstream_retries_total`,
      'Calls to the lookup service tried again after a failure worth retrying, by endpoint.',
      [['endpoint', ENDPOINTS]],
    );
    this.#slotWait = new HistogramFamily(
      r,
      `${PREFIX}upstream_slot_wait_seconds`,
      'Time a call waited for one of the UPSTREAM_MAX_IN_FLIGHT slots (le="0": none).',
      SLOT_WAIT_SECONDS,
    );
    this.#heldBack = new CounterFamily(
      r,
      `${PREFIX}upstream_calls_held_back_total`,
      'Calls answered without calling the lookup service, by reason: the open circuit, a run of 429s, or a spent UPSTREAM_MAX_CALLS_PER_MINUTE.',
      [['reason', HOLD_REASONS]],
    );
    this.#lookups = new CounterFamily(
      r,
      `${PREFIX}cache_lookups_total`,
      "Cache lookups, by level (response: whole answers; upstream_window: windows of 50 upstream results; redis: those windows in the fleet's store) and result.",
      [
        ['level', ['response', 'upstream_window', 'redis']],
        ['result', LOOKUP_RESULTS],
      ],
    );
    // Every pair from the start, at 0: an alert sees the first refused credentials as an increase, not as a series appearing.
    this.#renewals = new CounterFamily(
      r,
      `${PREFIX}upstream_token_renewals_total`,
      'Service token requests, by trigger and result.',
      [
        ['trigger', TRIGGERS],
        ['result', RENEWAL_RESULTS],
      ],
      { zeroes: true },
    );
    this.#rateLimited = new CounterFamily(
      r,
      `${PREFIX}rate_limit_refusals_total`,
      'Requests refused by the rate limit, by client kind and API key id (empty for other kinds).',
      [
        ['client_kind', ['api-key', 'jwt', 'anonymous']],
        ['api_key', ['', ...apiKeyIds, ADDED_KEY]],
      ],
    );
    registerGauges(r, () => this.#sources, limits);
    collectDefaultMetrics({ register: r });
    // Gauges named like counters, which promtool rejects; nodejs_active_handles and the like say the same by type.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      r.removeSingleMetric(name);
    }
  }

  /** Where the gauges read their values; until this is called they show none. */
  readFrom(sources: MetricSources): void {
    this.#sources = sources;
  }

  /** The exposition, in Prometheus' text format. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  request(outcome: RequestOutcome, seconds: number, refusalCode: string | undefined): void {
    this.#requests.inc(outcome);
    this.#requestSeconds.observe(seconds, outcome);
    if (refusalCode !== undefined) this.#refused(refusalCode);
  }

  /** A request Node could not read, answered straight on its socket. */
  unreadRequest(refusalCode: string): void {
    this.#requests.inc('refused');
    this.#refused(refusalCode);
  }

  #refused(code: string): void {
    this.#refusals.inc(CODE_SET.has(code) ? code : 'other');
    if (SERVICE_FAILURE_CODES.has(code)) this.#failed.inc('refused');
  }

  rateLimited(kind: ClientKind, apiKeyId: string): void {
    this.#rateLimited.inc(kind, apiKeyId === '' || this.#apiKeyIds.has(apiKeyId) ? apiKeyId : ADDED_KEY);
  }

  responseCacheLookup(hit: boolean): void {
    this.#lookups.inc('response', hit ? 'fresh' : 'miss');
  }

  graphqlPhase(phase: GraphqlPhase, seconds: number): void {
    this.#phaseSeconds.observe(seconds, phase);
  }

  /** One error of a GraphQL answer; whether it is a failure of the gateway or the upstream (SERVICE_FAILURE_CODES). */
  graphqlError(code: unknown): boolean {
    const known = typeof code === 'string' && CODE_SET.has(code);
    this.#graphqlErrors.inc(known ? code : 'other');
    return known && SERVICE_FAILURE_CODES.has(code);
  }

  /** A GraphQL answer (a batch's answers together) holding at least one such failure. */
  graphqlAnswerFailed(): void {
    this.#failed.inc('graphql');
  }

  call(endpoint: string, statusClass: UpstreamStatusClass, outcome: UpstreamCallOutcome, seconds: number): void {
    this.#upstreamCalls.inc(endpoint, statusClass, outcome);
    this.#upstreamSeconds.observe(seconds, endpoint);
  }

  retry(endpoint: string): void {
    this.#retries.inc(endpoint);
  }

  slotWait(seconds: number): void {
    this.#slotWait.observe(seconds);
  }

  heldBack(reason: HoldReason): void {
    this.#heldBack.inc(reason);
  }

  windowLookup(result: CacheLookupResult): void {
    this.#lookups.inc('upstream_window', result);
  }

  sharedWindowLookup(found: boolean): void {
    this.#lookups.inc('redis', found ? 'hit' : 'miss');
  }

  tokenRenewal(trigger: TokenRenewalTrigger, result: TokenRenewalResult): void {
    this.#renewals.inc(trigger, result);
  }
}

const CODE_SET = new Set(CODES);
