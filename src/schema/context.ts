import type { UpstreamClient } from '../upstream/client.js';

/** What every resolver gets: the way upstream and the limits that apply to arguments. */
export interface GatewayContext {
  upstream: UpstreamClient;
  limits: SearchLimits;
}

export interface SearchLimits {
  /** Longest `q` accepted, in characters after trimming. */
  maxQueryLength: number;
}
