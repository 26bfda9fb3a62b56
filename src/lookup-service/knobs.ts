import type { CompanyResult } from './company.js';
import { FaultQueue } from './faults.js';
import type { Fault } from './faults.js';
import type { QuotaMeter } from './quota-meter.js';
import type { Quota } from './quota-meter.js';
import type { TokenStore } from './token-store.js';
import { describe, requireDelayMs, requireInteger, requireNonEmptyString, requirePositiveFiniteNumber } from './validation.js';

type ResultsMapper = (results: CompanyResult[]) => unknown[];

/** A token answer as the service would send it. */
export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
}

type TokenAnswerMapper = (answer: TokenAnswer) => unknown;

/** Behaviour a test can change while the service runs; every request reads the current values. */
export interface LookupServiceKnobs {
  /** Delay before answering each search request, whatever the answer. */
  searchLatencyMs: number;
  /** Delay before answering each token request, whatever the answer. */
  tokenLatencyMs: number;
  /** Lifetime of tokens issued from now on; may be fractional, `expires_in` is then rounded up. */
  tokenLifetimeSeconds: number;
  /** When set, requests (token and search) beyond `limit` per window get 429 without Retry-After. Setting it starts a new window. */
  quota?: Quota | undefined;
  /** Applied to a copy of each page's results before serialising, e.g. to inject malformed fields. */
  mapResults?: ResultsMapper | undefined;
  /**
   * Applied to each token answer before serialising, e.g. to drop expires_in or
   * change token_type. The token is issued either way, so it stays usable.
   */
  mapTokenAnswer?: TokenAnswerMapper | undefined;
  /** The next `times` search requests (Infinity: until cleared) get the fault; calls queue up in order. */
  failSearch(fault: Fault, times?: number): void;
  /** The next `times` token requests (Infinity: until cleared) get the fault; calls queue up in order. */
  failToken(fault: Fault, times?: number): void;
  /** Forgets pending faults of both endpoints, mapResults and mapTokenAnswer. */
  clearFaults(): void;
  /**
   * The register corrects a company: from now on every search answer that holds it (by jurisdiction and number,
   * case ignored) gives it these fields instead, until the service closes. Searches still find it by what it was
   * indexed under. For tests of how a correction reaches clients (a purge); not a fault, so clearFaults keeps it.
   */
  correctCompany(jurisdiction: string, companyNumber: string, fields: Partial<Omit<CompanyResult, 'jurisdiction' | 'companyNumber'>>): void;
  /** Every token issued so far becomes invalid. */
  revokeTokens(): void;
  /** The tokens the service would accept now (issued, neither expired nor revoked), e.g. to check that a client never leaks one. */
  issuedTokens(): string[];
}

export interface InitialKnobs {
  searchLatencyMs: number;
  tokenLatencyMs: number;
  tokenLifetimeSeconds: number;
}

function correctionKey(jurisdiction: string, companyNumber: string): string {
  return `${jurisdiction.toUpperCase()}:${companyNumber.toUpperCase()}`;
}

function validateQuota(quota: unknown): Quota | undefined {
  if (quota === undefined) return undefined;
  if (typeof quota !== 'object' || quota === null || !('limit' in quota) || !('windowMs' in quota)) {
    throw new TypeError(`quota must be { limit, windowMs } or undefined, got ${describe(quota)}`);
  }
  return {
    limit: requireInteger('quota.limit', quota.limit, 0, Number.MAX_SAFE_INTEGER),
    windowMs: requirePositiveFiniteNumber('quota.windowMs', quota.windowMs),
  };
}

export class Knobs implements LookupServiceKnobs {
  private currentSearchLatencyMs = 0;
  private currentTokenLatencyMs = 0;
  private currentTokenLifetimeSeconds = 1;
  private currentQuota: Quota | undefined;
  private currentMapResults: ResultsMapper | undefined;
  private currentMapTokenAnswer: TokenAnswerMapper | undefined;
  private readonly corrections = new Map<string, Partial<CompanyResult>>();
  private readonly searchFaults = new FaultQueue();
  private readonly tokenFaults = new FaultQueue();

  constructor(
    initial: InitialKnobs,
    private readonly tokens: TokenStore,
    private readonly quotaMeter: QuotaMeter,
  ) {
    this.searchLatencyMs = initial.searchLatencyMs;
    this.tokenLatencyMs = initial.tokenLatencyMs;
    this.tokenLifetimeSeconds = initial.tokenLifetimeSeconds;
  }

  get searchLatencyMs(): number {
    return this.currentSearchLatencyMs;
  }

  set searchLatencyMs(value: number) {
    this.currentSearchLatencyMs = requireDelayMs('searchLatencyMs', value);
  }

  get tokenLatencyMs(): number {
    return this.currentTokenLatencyMs;
  }

  set tokenLatencyMs(value: number) {
    this.currentTokenLatencyMs = requireDelayMs('tokenLatencyMs', value);
  }

  get tokenLifetimeSeconds(): number {
    return this.currentTokenLifetimeSeconds;
  }

  set tokenLifetimeSeconds(value: number) {
    this.currentTokenLifetimeSeconds = requirePositiveFiniteNumber('tokenLifetimeSeconds', value);
  }

  get quota(): Quota | undefined {
    return this.currentQuota;
  }

  set quota(value: Quota | undefined) {
    this.currentQuota = validateQuota(value);
    this.quotaMeter.reset();
  }

  get mapResults(): ResultsMapper | undefined {
    return this.currentMapResults;
  }

  set mapResults(value: ResultsMapper | undefined) {
    if (value !== undefined && typeof value !== 'function')
      throw new TypeError(`mapResults must be a function or undefined, got ${describe(value)}`);
    this.currentMapResults = value;
  }

  get mapTokenAnswer(): TokenAnswerMapper | undefined {
    return this.currentMapTokenAnswer;
  }

  set mapTokenAnswer(value: TokenAnswerMapper | undefined) {
    if (value !== undefined && typeof value !== 'function')
      throw new TypeError(`mapTokenAnswer must be a function or undefined, got ${describe(value)}`);
    this.currentMapTokenAnswer = value;
  }

  failSearch(fault: Fault, times = 1): void {
    this.searchFaults.add(fault, times);
  }

  failToken(fault: Fault, times = 1): void {
    this.tokenFaults.add(fault, times);
  }

  clearFaults(): void {
    this.searchFaults.clear();
    this.tokenFaults.clear();
    this.currentMapResults = undefined;
    this.currentMapTokenAnswer = undefined;
  }

  correctCompany(jurisdiction: string, companyNumber: string, fields: Partial<CompanyResult>): void {
    if (typeof fields !== 'object' || fields === null) throw new TypeError(`fields must be an object, got ${describe(fields)}`);
    const { jurisdiction: _, companyNumber: __, ...correction } = fields;
    const key = correctionKey(requireNonEmptyString('jurisdiction', jurisdiction), requireNonEmptyString('companyNumber', companyNumber));
    this.corrections.set(key, { ...this.corrections.get(key), ...structuredClone(correction) });
  }

  /** Results as the register has them now, corrections applied (to copies: the data set is shared and frozen). */
  corrected(results: CompanyResult[]): CompanyResult[] {
    if (this.corrections.size === 0) return results;
    return results.map((result) => {
      const correction = this.corrections.get(correctionKey(result.jurisdiction, result.companyNumber));
      return correction === undefined ? result : { ...result, ...structuredClone(correction) };
    });
  }

  revokeTokens(): void {
    this.tokens.revokeAll();
  }

  issuedTokens(): string[] {
    return this.tokens.validTokens();
  }

  /** Records a request against the quota; false when it must be refused with 429. */
  admitRequest(): boolean {
    return this.quotaMeter.admit(this.currentQuota);
  }

  takeSearchFault(): Fault | undefined {
    return this.searchFaults.take();
  }

  takeTokenFault(): Fault | undefined {
    return this.tokenFaults.take();
  }
}
