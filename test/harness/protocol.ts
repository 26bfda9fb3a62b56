import type { GatewayConfig } from '../../src/gateway/config/gateway-config.js';

/**
 * How the benchmark and the soak run talk to their child processes over IPC.
 * Parent to child: call `method`; the child answers with the same `id`.
 */
export interface CallMessage {
  id: number;
  method: string;
  params?: unknown;
}

/**
 * Child to parent. `alive` comes first, once the child listens for calls;
 * `crash` is the last word of a child dying of an uncaught error.
 */
export type ChildMessage =
  | { alive: true }
  | { id: number; result: unknown }
  | { id: number; error: string }
  | { crash: { origin: string; error: string } };

/** What every child reports about its own process; `cpuUs` is user plus system time of all its threads. */
export interface ProcessStats {
  cpuUs: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** Garbage collection pauses since the child started (serve-parent.ts says which), and their total length. */
  gcPauses: number;
  gcUs: number;
}

/** The gateway's log lines, counted in its process (gateway-child.ts with `log: 'count'`). */
export interface LogCounts {
  /** Lines by level. */
  levels: Record<string, number>;
  /** Lines by level and message, digits replaced by #, so that similar lines count together. */
  messages: Record<string, number>;
  /** The first few error and fatal lines, verbatim but shortened. */
  errorSamples: string[];
}

/** What the gateway child reports: its process, the bytes its caches hold, and its log lines when it counts them. */
export interface GatewayStats extends ProcessStats {
  cacheBytes: number;
  /** Absent when the gateway writes its log lines to its stdout instead. */
  log?: LogCounts;
}

/** The gateway child's `start` call. Its environment configures it as `npm start`'s does; `settings` go on top. */
export interface GatewayStartParams {
  settings?: Partial<GatewayConfig>;
  /** `stdout`: log lines are written there, as in production; `count`: they are counted, for `stats`. */
  log: 'stdout' | 'count';
}

export interface GatewayStarted {
  url: string;
  graphqlUrl: string;
  /** CACHE_MAX_BYTES as the gateway read it: the bound its caches keep to. */
  cacheMaxBytes: number;
}
