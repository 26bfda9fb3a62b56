import {
  DEFAULT_OTEL_RECORD_SEARCH_TERMS,
  DEFAULT_OTEL_SERVICE_NAME,
  DEFAULT_OTEL_TRACES_SAMPLER,
  DEFAULT_OTLP_PROTOCOL,
  OTEL_TRACES_SAMPLERS,
  OTLP_PROTOCOLS,
} from './defaults.js';
import type { EnvReader } from './env-reader.js';

/** Where tracing is on: what the gateway itself decides; the SDK reads the rest of the OTEL_* variables. */
export interface TracingSettings {
  serviceName: string;
  /** Whether spans may hold what clients search for (`q`, `companyNumber`); off, they never do. */
  recordSearchTerms: boolean;
}

/**
 * Tracing is off unless an OTLP endpoint is set: a gateway nobody asked to
 * trace loads no SDK and pays nothing per request. The standard variables the
 * SDK also reads are checked here, so that a typo stops the start with a
 * precise line rather than leaving the SDK to fall back on a warning nobody reads.
 */
export function readTracingSettings(reader: EnvReader): { tracing: TracingSettings | undefined } {
  const disabled = reader.boolean('OTEL_SDK_DISABLED', false);
  const exporter = reader.oneOf('OTEL_TRACES_EXPORTER', ['otlp', 'none'], 'otlp');
  const endpoint = reader.url('OTEL_EXPORTER_OTLP_ENDPOINT');
  const tracesEndpoint = reader.url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  reader.oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', OTLP_PROTOCOLS, DEFAULT_OTLP_PROTOCOL);
  reader.oneOf('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', OTLP_PROTOCOLS, DEFAULT_OTLP_PROTOCOL);
  const sampler = reader.oneOf('OTEL_TRACES_SAMPLER', OTEL_TRACES_SAMPLERS, DEFAULT_OTEL_TRACES_SAMPLER);
  readSamplerRatio(reader, sampler.endsWith('traceidratio'));
  const serviceName = reader.string('OTEL_SERVICE_NAME') ?? DEFAULT_OTEL_SERVICE_NAME;
  const recordSearchTerms = reader.boolean('OTEL_RECORD_SEARCH_TERMS', DEFAULT_OTEL_RECORD_SEARCH_TERMS);
  const configured = endpoint !== undefined || tracesEndpoint !== undefined;
  return { tracing: !disabled && exporter === 'otlp' && configured ? { serviceName, recordSearchTerms } : undefined };
}

/** The ratio of the trace-id ratio samplers, a number from 0 to 1; the SDK would read a bad one as 1 without a word. */
function readSamplerRatio(reader: EnvReader, used: boolean): void {
  const raw = reader.string('OTEL_TRACES_SAMPLER_ARG');
  if (raw === undefined || !used) return;
  const ratio = /^\d*\.?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(ratio >= 0 && ratio <= 1)) {
    reader.refuse('OTEL_TRACES_SAMPLER_ARG', `OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got ${JSON.stringify(raw)}`);
  }
}
