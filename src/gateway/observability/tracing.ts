import type { Tracing, TracingOptions, TracingSettings } from './tracing-hooks.js';

export type { Serve, Tracing, TracingOptions, TracingSettings } from './tracing-hooks.js';

/**
 * Starts the OpenTelemetry SDK where the settings turn tracing on. The SDK
 * (tens of modules) is imported only then, so an untraced gateway never
 * loads it.
 */
export async function startTracing(settings: TracingSettings | undefined, options: TracingOptions = {}): Promise<Tracing | undefined> {
  if (settings === undefined) return undefined;
  const { startSdk } = await import('./tracing-sdk.js');
  return startSdk(settings, options);
}
