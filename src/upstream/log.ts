/** Where the upstream client reports what operators should see; pino's logger fits. */
export interface UpstreamLog {
  debug(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}
