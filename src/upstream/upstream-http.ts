import { Pool, errors as undiciErrors } from 'undici';
import { UpstreamBadResponseError, UpstreamTimeoutError, UpstreamUnavailableError } from './errors.js';

export interface UpstreamHttpOptions {
  /** Base URL of the lookup service; a path prefix is kept (`https://host/lookup`). */
  baseUrl: URL;
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxResponseBytes: number;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** Endpoint path below the base URL, e.g. `/v1/company/search`; named in error messages. */
  endpoint: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}

export interface UpstreamResponse {
  status: number;
  body: string;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

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
 * The one connection pool to the lookup service. It turns transport failures
 * into coded upstream errors; status codes are left to the caller, which knows
 * what each one means for its endpoint.
 */
export class UpstreamHttp {
  readonly #pool: Pool;
  readonly #basePath: string;

  constructor(options: UpstreamHttpOptions) {
    this.#basePath = options.baseUrl.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(options.baseUrl.origin, {
      connections: options.connections,
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      maxResponseSize: options.maxResponseBytes,
      keepAliveTimeout: 4_000,
    });
  }

  async request(request: UpstreamRequest): Promise<UpstreamResponse> {
    const where = `${request.method} ${request.endpoint}`;
    const search = request.query ? `?${new URLSearchParams(request.query)}` : '';
    try {
      const response = await this.#pool.request({
        method: request.method,
        path: `${this.#basePath}${request.endpoint}${search}`,
        headers: request.headers,
        body: request.body,
      });
      return { status: response.statusCode, body: await response.body.text() };
    } catch (error) {
      throw describeTransportError(error, where);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

function describeTransportError(error: unknown, where: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
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
  return error;
}
