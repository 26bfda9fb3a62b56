import type { UpstreamLog } from '../../src/upstream/log.js';

/** An UpstreamLog that keeps every message, for unit tests of the upstream pieces. */
export function recordingLog(): UpstreamLog & { messages: string[] } {
  const messages: string[] = [];
  const record = (_details: Record<string, unknown>, message: string) => void messages.push(message);
  return { messages, debug: record, info: record, warn: record };
}
