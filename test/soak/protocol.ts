import type { SoakGatewaySettings } from './settings.js';

/** What the soak run tells the gateway child. */
export type ParentMessage =
  | { type: 'start'; upstream: { url: string; clientId: string; clientSecret: string }; settings: SoakGatewaySettings }
  | { type: 'stats'; id: number; gc: boolean };

/** What the gateway child reports back. */
export type ChildMessage =
  | { type: 'ready'; graphqlUrl: string }
  | { type: 'stats'; id: number; stats: GatewayStats }
  | { type: 'crash'; origin: string; error: string };

export interface GatewayStats {
  rssBytes: number;
  heapUsedBytes: number;
  /** Log lines by level (the logger writes warn and above). */
  logLevels: Record<string, number>;
  /** Log lines by message, digits replaced by #, so that similar lines count together. */
  logMessages: Record<string, number>;
  /** The first few error and fatal lines, verbatim but shortened. */
  errorSamples: string[];
}
