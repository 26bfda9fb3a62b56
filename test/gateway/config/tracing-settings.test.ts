import { describe, expect, it } from 'vitest';
import { readConfig, type Env } from '../../../src/gateway/config/gateway-config.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';
import { startTracing } from '../../../src/gateway/observability/tracing.js';
import { problemsOf } from '../../support/config-problems.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

/** What the gateway starts tracing with, as `env` sets it. */
const tracingOf = (env: Env) => optionsOf(readConfig(env)).tracingSettings;

describe('tracing settings', () => {
  it('leave tracing off when no OTLP endpoint is set', async () => {
    expect(tracingOf({})).toBeUndefined();
    expect(tracingOf({ OTEL_SERVICE_NAME: 'gateway', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(await startTracing(undefined)).toBeUndefined();
  });

  it('turn tracing on with an OTLP endpoint, for all signals or for traces alone', () => {
    expect(tracingOf(ENDPOINT)).toEqual({ serviceName: 'company-search-gateway', recordSearchTerms: false });
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example.com/v1/traces',
        OTEL_SERVICE_NAME: 'search-gateway-eu',
        OTEL_RECORD_SEARCH_TERMS: 'true',
      }),
    ).toEqual({ serviceName: 'search-gateway-eu', recordSearchTerms: true });
  });

  it('leave tracing off when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none says so, endpoint or not', () => {
    expect(tracingOf({ ...ENDPOINT, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingOf({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('refuse what the SDK would otherwise replace by a default without a word', () => {
    expect(
      problemsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml',
        OTEL_TRACES_EXPORTER: 'jaeger',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_RECORD_SEARCH_TERMS: 'yes',
      }),
    ).toEqual([
      'OTEL_TRACES_EXPORTER must be one of otlp, none, got "jaeger"',
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, grpc, got "http/xml"',
      'OTEL_TRACES_SAMPLER must be one of parentbased_always_on, parentbased_always_off, parentbased_traceidratio, always_on, always_off, traceidratio, got "sometimes"',
      'OTEL_RECORD_SEARCH_TERMS must be true or false, got "yes"',
    ]);
    expect(problemsOf({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toEqual([
      'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "1.5"',
    ]);
    expect(tracingOf({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toBeDefined();
  });
});
