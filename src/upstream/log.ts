/** Where the upstream client reports what operators should see; pino's logger fits. */
export interface UpstreamLog {
  warn(details: Record<string, unknown>, message: string): void;
}
