import type { IncomingHttpHeaders } from 'node:http';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import {
  UpstreamBadResponseError,
  UpstreamCircuitOpenError,
  type UpstreamError,
  UpstreamRateLimitHoldError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../errors/upstream-errors.js';
import type { UpstreamLog } from './log.js';
import { NO_UPSTREAM_OBSERVER, statusClassOf, type UpstreamCallOutcome, type UpstreamObserver, type UpstreamStatus } from './observer.js';
import { CallBudget } from './resilience/call-budget.js';
import { CircuitBreaker } from './resilience/circuit-breaker.js';
import { ConcurrencyLimit } from './resilience/concurrency-limit.js';
import { systemClock, type Clock, wallTime } from './resilience/clock.js';
import { deadlineExceeded } from './resilience/deadline.js';
import { timerDelayUntil } from '../shared/timers.js';
import { parseRetryAfter } from './resilience/retry-policy.js';
import type { HeldBack, SharedStore } from './shared-store.js';
import { heldBackByFleet, SharedHold } from './shared-hold.js';

export interface UpstreamHttpOptions {
  /** Base URL of the lookup service; a path prefix is kept (`https://host/lookup`). */
  baseUrl: URL;
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxResponseBytes: number;
  /** Most calls in flight at once; the rest queue within their deadline. */
  maxInFlight: number;
  breaker: { failureThreshold: number; cooldownMs: number };
  /** The longest wait a Retry-After header may ask for; longer ones are cut to this. */
  maxRetryAfterMs: number;
  log: UpstreamLog;
  clock?: Clock | undefined;
  /** Shares the upstream's "wait" (429 with Retry-After, circuit open) and the call budget with the other instances of a fleet. */
  shared?: SharedStore | undefined;
  /** Calls per minute the upstream may be made, token calls included; undefined: no budget. */
  maxCallsPerMinute: number | undefined;
  observer?: UpstreamObserver | undefined;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** Endpoint path below the base URL, e.g. `/v1/company/search`; named in error messages. */
  endpoint: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  /** A refresh nobody waits for: it gives way first when the call budget runs low. */
  background?: boolean | undefined;
}

export interface UpstreamResponse {
  status: number;
  body: string;
  /** From the Retry-After header, when the upstream sent one, at most `maxRetryAfterMs`. */
  retryAfterMs: number | undefined;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/**
 * The one way to the lookup service: a connection pool behind a concurrency
 * limit and a circuit breaker. It turns transport failures into coded upstream
 * errors; status codes are left to the caller, which knows what each one means
 * for its endpoint.
 */
export class UpstreamHttp {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #limit: ConcurrencyLimit;
  readonly #breaker: CircuitBreaker;
  readonly #maxRetryAfterMs: number;
  readonly #clock: Clock;
  readonly #fleet: { store: SharedStore; hold: SharedHold } | undefined;
  readonly #budget: CallBudget | undefined;
  readonly #observer: UpstreamObserver;

  constructor(options: UpstreamHttpOptions) {
    this.#observer = options.observer ?? NO_UPSTREAM_OBSERVER;
    this.#basePath = options.baseUrl.pathname.replace(/\/+$/, '');
    this.#limit = new ConcurrencyLimit(options.maxInFlight);
    this.#maxRetryAfterMs = options.maxRetryAfterMs;
    this.#clock = options.clock ?? systemClock;
    this.#budget =
      options.maxCallsPerMinute === undefined ? undefined : new CallBudget({ perMinute: options.maxCallsPerMinute, clock: this.#clock });
    const hold =
      options.shared && new SharedHold(options.shared, Math.max(options.breaker.cooldownMs, options.maxRetryAfterMs), this.#budget?.shared);
    this.#fleet = options.shared && hold && { store: options.shared, hold };
    this.#breaker = new CircuitBreaker({
      ...options.breaker,
      maxRetryAfterMs: options.maxRetryAfterMs,
      log: options.log,
      clock: this.#clock,
      onOpen: hold && ((cooldownMs, rateLimited) => hold.hold(cooldownMs, rateLimited)),
    });
    this.#pool = new Pool(options.baseUrl.origin, {
      connections: options.connections,
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      maxResponseSize: options.maxResponseBytes,
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * One call, abandoned at `expiresAt`, its answer turned by `read` into what
   * the caller wants. A 5xx, a 429, a transport failure or an answer that
   * `read` finds unusable (UpstreamBadResponseError) counts against the
   * circuit breaker: an upstream answering what cannot be used is failing as
   * surely as one answering 503. Any other answer shows the upstream is up.
   */
  async request<T>(request: UpstreamRequest, expiresAt: number, read: (response: UpstreamResponse) => T): Promise<T> {
    const where = `${request.method} ${request.endpoint}`;
    const search = request.query ? `?${new URLSearchParams(request.query)}` : '';
    const observer = this.#observer;
    const waitStart = performance.now();
    let release: () => void;
    try {
      release = await this.#limit.acquire(expiresAt, where);
    } finally {
      observer.slotWait((performance.now() - waitStart) / 1000);
    }
    let call: Promise<Exchanged>;
    const startedAt = performance.now();
    try {
      // Before the breaker, which once it admits a probe waits for its outcome.
      await this.#admitToFleet(where, request.background === true);
      this.#admit(where);
      // The slot comes back when undici is done with the call, not when its caller stops
      // waiting: a call answered at its deadline may still sit in the pool's queue.
      call = exchange(
        this.#pool,
        { method: request.method, path: `${this.#basePath}${request.endpoint}${search}`, headers: request.headers, body: request.body },
        expiresAt,
        where,
        release,
      );
    } catch (error) {
      release();
      throw error;
    }
    let response: UpstreamResponse;
    try {
      const answer = await call;
      response = {
        status: answer.statusCode,
        body: answer.body,
        retryAfterMs: parseRetryAfter(answer.headers['retry-after'], this.#maxRetryAfterMs, wallTime(this.#clock)),
      };
    } catch (error) {
      this.#breaker.recordFailure();
      const failure = error instanceof UpstreamTimeoutError ? error : describeTransportError(error, where);
      observer.call(request.endpoint, 'none', transportOutcome(failure), (performance.now() - startedAt) / 1000);
      throw failure;
    }
    const statusClass = statusClassOf(response.status);
    const answeredAt = performance.now();
    if (response.status === 429 && response.retryAfterMs !== undefined) this.#fleet?.hold.hold(response.retryAfterMs, true);
    if (response.status >= 500 || response.status === 429) {
      this.#breaker.recordFailure({ rateLimited: response.status === 429, retryAfterMs: response.retryAfterMs });
      observer.call(request.endpoint, statusClass, 'http_error', (answeredAt - startedAt) / 1000);
      // The other instances hold back from the moment this failure is known.
      await this.#fleet?.hold.written();
      return read(response);
    }
    let result: T;
    try {
      result = read(response);
    } catch (error) {
      const badResponse = error instanceof UpstreamBadResponseError;
      if (badResponse) this.#breaker.recordFailure();
      else this.#breaker.recordSuccess();
      observer.call(request.endpoint, statusClass, badResponse ? 'bad_response' : 'http_error', (answeredAt - startedAt) / 1000);
      throw error;
    }
    this.#breaker.recordSuccess();
    observer.call(request.endpoint, statusClass, response.status >= 400 ? 'http_error' : 'success', (answeredAt - startedAt) / 1000);
    return result;
  }

  /** The circuit breaker's and the call slots' state now. */
  status(): Omit<UpstreamStatus, 'token'> {
    return { circuit: this.#breaker.state, callsInFlight: this.#limit.inFlight, callsWaiting: this.#limit.waiting };
  }

  /** The error of a call the fleet holds back (another's hold, the spent budget), counted as held back. */
  #heldBack(decision: HeldBack, where: string, background: boolean): Error {
    this.#observer.heldBack(decision.reason);
    if (decision.reason === 'budget_spent' && this.#budget) return this.#budget.spent(where, background, decision.waitMs);
    return heldBackByFleet(decision, where);
  }

  /**
   * The others' holds and the fleet's call budget, in one round trip; while the store cannot answer, or alone,
   * this instance's own budget.
   */
  async #admitToFleet(where: string, background: boolean): Promise<void> {
    const decision = this.#fleet && (await this.#fleet.store.admit({ ...this.#fleet.hold.admission, background }));
    if (decision?.outcome === 'held back') throw this.#heldBack(decision, where, background);
    if (decision !== undefined || this.#budget === undefined) return;
    try {
      this.#budget.take(where, background);
    } catch (error) {
      this.#observer.heldBack('budget_spent');
      throw error;
    }
  }

  #admit(where: string): void {
    try {
      this.#breaker.admit(where);
    } catch (error) {
      if (error instanceof UpstreamRateLimitHoldError) this.#observer.heldBack('rate_limited');
      else if (error instanceof UpstreamCircuitOpenError) this.#observer.heldBack('circuit_open');
      throw error;
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

interface Exchanged {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request and its whole answer, through the pool's handler API: the body
 * is gathered as bytes, with none of the stream, AbortController and abort
 * listener that `request()` sets up for each call. Abandoned at `expiresAt` by
 * a timer cleared when the call ends; a call still waiting for its socket then
 * is aborted as soon as it gets one, and its caller is answered at once.
 * `onDone` runs once, when undici has finished with the call either way.
 */
function exchange(
  pool: Pool,
  options: Dispatcher.DispatchOptions,
  expiresAt: number,
  where: string,
  onDone: () => void,
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let abandoned = false;
    const timer = setTimeout(
      () => {
        abandoned = true;
        if (controller) controller.abort(deadlineExceeded(where));
        else reject(deadlineExceeded(where));
      },
      Math.max(1, timerDelayUntil(expiresAt)),
    );
    let statusCode = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    pool.dispatch(options, {
      onRequestStart(started) {
        controller = started;
        if (abandoned) started.abort(deadlineExceeded(where));
      },
      onResponseStart(_, status, responseHeaders) {
        statusCode = status;
        headers = responseHeaders;
      },
      onResponseData(_, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        clearTimeout(timer);
        onDone();
        resolve({ statusCode, headers, body: Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError(_, error) {
        clearTimeout(timer);
        onDone();
        reject(error);
      },
    });
  });
}

function transportOutcome(error: unknown): UpstreamCallOutcome {
  if (error instanceof UpstreamTimeoutError) return 'timeout';
  if (error instanceof UpstreamUnavailableError) return 'connection_error';
  if (error instanceof UpstreamBadResponseError) return 'bad_response';
  return 'error';
}

/**
 * Every way the exchange can fail is an upstream failure with its code: the
 * answer that undici cannot read as HTTP (a garbled status line, headers over
 * its limit, a bad chunk: HPE_* and other undici codes) is one the gateway
 * cannot read, and was an internal error to clients, with no stale window
 * served in its place.
 */
function describeTransportError(error: unknown, where: string): UpstreamError {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    return new UpstreamBadResponseError(`Company lookup service call failed on ${where} (${String(error)})`, { cause: error });
  }
  if (TIMEOUT_CODES.has(code)) {
    return new UpstreamTimeoutError(`Company lookup service timed out on ${where} (${code})`, { cause: error });
  }
  if (CONNECTION_CODES.has(code)) {
    return new UpstreamUnavailableError(`Company lookup service could not be reached for ${where} (${code})`, {
      cause: error,
    });
  }
  if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
    return new UpstreamBadResponseError(`Company lookup service sent an oversized body on ${where}`, { cause: error });
  }
  return new UpstreamBadResponseError(`Company lookup service sent an answer that is not readable HTTP on ${where} (${code})`, {
    cause: error,
  });
}
