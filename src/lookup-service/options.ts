import type { CompanyResult } from './company.js';
import { randomCredentials } from './credentials.js';
import type { InitialKnobs } from './knobs.js';
import type { ClientCredentials } from './token-request.js';
import { describe, requireDelayMs, requireInteger, requireNonEmptyString, requirePositiveFiniteNumber } from './validation.js';

export interface LookupServiceOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default: random, 'client_' and 16 hex digits. */
  clientId?: string;
  /** Default: 32 random bytes, base64url. */
  clientSecret?: string;
  /** Default 3600. */
  tokenLifetimeSeconds?: number;
  /** Default 0: delay before answering each search. */
  searchLatencyMs?: number;
  /** Default 0: delay before answering each token request. */
  tokenLatencyMs?: number;
  /** Default: the generated data set. */
  companies?: readonly CompanyResult[];
  /**
   * Default false: the generated data set is made and indexed before the service listens. True: at the first search,
   * or when `prepareSearch()` asks, so that a start does not wait the second or so of CPU it takes. No effect with `companies`.
   */
  deferDataSet?: boolean;
  /** Milliseconds on a clock of the test's, for token lifetimes and quota windows; default performance.now(). */
  clock?: () => number;
}

interface ResolvedOptions {
  clock: () => number;
  host: string;
  port: number;
  credentials: ClientCredentials;
  knobs: InitialKnobs;
  /** The companies given, or undefined for the generated data set. */
  companies: readonly CompanyResult[] | undefined;
  deferDataSet: boolean;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'host',
  'port',
  'clientId',
  'clientSecret',
  'tokenLifetimeSeconds',
  'searchLatencyMs',
  'tokenLatencyMs',
  'companies',
  'deferDataSet',
  'clock',
]);

export const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;

/** Fills in defaults and rejects any invalid or unknown option before the service starts. */
export function resolveOptions(options: LookupServiceOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError(`options must be an object, got ${describe(options)}`);
  for (const name of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(name)) throw new TypeError(`Unknown option: ${name}`);
  }
  if (options.companies !== undefined && !Array.isArray(options.companies)) {
    throw new TypeError(`companies must be an array, got ${describe(options.companies)}`);
  }
  if (options.deferDataSet !== undefined && typeof options.deferDataSet !== 'boolean') {
    throw new TypeError(`deferDataSet must be a boolean, got ${describe(options.deferDataSet)}`);
  }
  if (options.clock !== undefined && typeof options.clock !== 'function') {
    throw new TypeError(`clock must be a function, got ${describe(options.clock)}`);
  }
  const generated = randomCredentials();
  return {
    clock: options.clock ?? (() => performance.now()),
    host: requireNonEmptyString('host', options.host ?? DEFAULT_HOST),
    port: requireInteger('port', options.port ?? 0, 0, 65_535),
    credentials: {
      clientId: requireNonEmptyString('clientId', options.clientId ?? generated.clientId),
      clientSecret: requireNonEmptyString('clientSecret', options.clientSecret ?? generated.clientSecret),
    },
    knobs: {
      searchLatencyMs: requireDelayMs('searchLatencyMs', options.searchLatencyMs ?? 0),
      tokenLatencyMs: requireDelayMs('tokenLatencyMs', options.tokenLatencyMs ?? 0),
      tokenLifetimeSeconds: requirePositiveFiniteNumber(
        'tokenLifetimeSeconds',
        options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS,
      ),
    },
    companies: options.companies,
    deferDataSet: options.deferDataSet ?? false,
  };
}
