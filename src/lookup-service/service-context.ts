import type { Counters } from './counters.js';
import type { CredentialsCheck } from './credentials.js';
import type { Knobs } from './knobs.js';
import type { SearchIndex } from './search-index.js';
import type { TokenStore } from './token-store.js';

/** Everything a request handler needs from the running service. */
export interface ServiceContext {
  /** The index searched, built on first use when the service started without companies of its own. */
  readonly searchIndex: () => SearchIndex;
  readonly tokens: TokenStore;
  readonly knobs: Knobs;
  readonly counters: Counters;
  /** True for the service's own client credentials. */
  readonly credentialsMatch: CredentialsCheck;
  /** Aborted when the service closes, which ends every latency wait. */
  readonly closing: AbortSignal;
}
