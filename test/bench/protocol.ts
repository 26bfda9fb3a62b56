/** What the benchmark's own children (children/*.ts) take and answer; the gateway child and the calls themselves are test/harness's. */

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
