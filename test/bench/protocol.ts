/** What every child reports about its own process; `cpuUs` is user plus system time of all its threads. */
export interface ProcessStats {
  cpuUs: number;
  rssBytes: number;
  heapUsedBytes: number;
}

/** The gateway child also reports the bytes its caches hold (`RunningGateway.cacheBytes`). */
export interface GatewayStats extends ProcessStats {
  cacheBytes: number;
}

export interface LookupStartParams {
  searchLatencyMs: number;
}

export interface LookupStarted {
  url: string;
  credentials: { clientId: string; clientSecret: string };
}

export interface LookupKnobs {
  searchLatencyMs?: number;
  tokenLatencyMs?: number;
}

export interface LookupCounts {
  searchRequests: number;
  tokenRequests: number;
}

export interface ServerStarted {
  url: string;
}

export interface BaselineAnswer {
  body: Uint8Array;
  contentType: string;
}

/** Parent to child: call `method`; the child answers with the same `id`. */
export interface CallMessage {
  id: number;
  method: string;
  params?: unknown;
}

/** Child to parent. `alive` comes first, once the child listens for calls. */
export type ChildMessage = { alive: true } | { id: number; result: unknown } | { id: number; error: string };
