import { afterEach, describe, expect, it } from 'vitest';
import { allFixtureCompanies, defaultDataSet, searchIndexFor, startLookupService } from '../../src/lookup-service/index.js';
import type { LookupService, LookupServiceOptions } from '../../src/lookup-service/index.js';
import { send } from '../support/http.js';
import { rawExchange } from '../support/raw-connection.js';
import { watch } from '../support/watched-request.js';
import { accessToken, searchRequest, tokenRequest } from '../support/lookup-client.js';
import { eventually } from '../support/within.js';

const started: LookupService[] = [];

async function start(options: LookupServiceOptions = {}): Promise<LookupService> {
  const service = await startLookupService({ companies: allFixtureCompanies, ...options });
  started.push(service);
  return service;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((service) => service.close()));
});

describe('startLookupService', () => {
  it('listens on an ephemeral loopback port with random credentials by default', async () => {
    const service = await start();
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.credentials.clientId).toMatch(/^client_[0-9a-f]{16}$/);
    expect(service.credentials.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await start();
    expect(other.url).not.toBe(service.url);
    expect(other.credentials).not.toEqual(service.credentials);
    expect(
      (await tokenRequest(other, { client_id: service.credentials.clientId, client_secret: service.credentials.clientSecret })).status,
    ).toBe(401);
  });

  it('uses the given credentials, port and initial knobs', async () => {
    const probe = await start();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const service = await start({
      port,
      clientId: 'id',
      clientSecret: 'secret',
      searchLatencyMs: 5,
      tokenLatencyMs: 6,
      tokenLifetimeSeconds: 60,
    });
    expect(service.url).toBe(`http://127.0.0.1:${port}`);
    expect(service.credentials).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(service.knobs).toMatchObject({ searchLatencyMs: 5, tokenLatencyMs: 6, tokenLifetimeSeconds: 60 });
    expect(JSON.parse((await tokenRequest(service)).text)).toMatchObject({ expires_in: 60 });
  });

  it.each([
    [{ port: 70_000 }, 'port must be an integer from 0 to 65535, got 70000'],
    [{ port: 1.5 }, 'port must be an integer from 0 to 65535, got 1.5'],
    [{ host: '' }, 'host must be a non-empty string, got ""'],
    [{ clientId: '' }, 'clientId must be a non-empty string, got ""'],
    [{ clientSecret: 7 }, 'clientSecret must be a non-empty string, got 7'],
    [{ tokenLifetimeSeconds: -5 }, 'tokenLifetimeSeconds must be a positive finite number, got -5'],
    [{ searchLatencyMs: Infinity }, 'searchLatencyMs must be a number of milliseconds from 0 to 2147483647, got Infinity'],
    [{ companies: 'all' }, 'companies must be an array, got "all"'],
    [{ deferDataSet: 'yes' }, 'deferDataSet must be a boolean, got "yes"'],
    [{ prot: 80 }, 'Unknown option: prot'],
  ])('refuses %j: %s', async (options, message) => {
    await expect(startLookupService(options as LookupServiceOptions)).rejects.toThrow(message);
  });

  it.for([
    ['at its first search', false],
    ['once prepareSearch asks', true],
  ] as const)('with deferDataSet, generates the data set %s, and answers from it as a service that did not wait', async ([, prepare]) => {
    const service = await startLookupService({ deferDataSet: true });
    started.push(service);
    if (prepare) service.prepareSearch();
    const request = { q: 'holdings', jurisdiction: 'GB', page: 2, pageSize: 10 };
    const answer = await searchRequest(service, { ...request, page: '2', pageSize: '10' }, await accessToken(service));
    const expected = searchIndexFor(defaultDataSet()).search(request);
    expect(expected.total).toBeGreaterThan(10);
    expect(JSON.parse(answer.text)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('fails to start on a port in use', async () => {
    const service = await start();
    await expect(startLookupService({ companies: allFixtureCompanies, port: Number(new URL(service.url).port) })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });
});

describe('the running service', () => {
  it('keeps connections alive', async () => {
    const service = await start();
    const answer = await tokenRequest(service);
    expect(answer.headers.connection).toBe('keep-alive');
  });

  it('answers 400 in JSON to a request target it cannot parse, and keeps running', async () => {
    const service = await start();
    const answer = await rawExchange(service.url, 'GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('{"message":"Malformed request target"}');
    expect((await tokenRequest(service)).status).toBe(200);
  });
});

describe('close', () => {
  it('closes hanging and waiting requests at once, and may be called again', async () => {
    const service = await start();
    const token = await accessToken(service);
    service.knobs.failSearch({ kind: 'hang' });
    const hanging = watch(searchRequest(service, { q: 'zebra', jurisdiction: 'GB', pageSize: '1' }, token));
    service.knobs.searchLatencyMs = 60_000;
    const waiting = watch(searchRequest(service, { q: 'zebra', jurisdiction: 'GB', pageSize: '1' }, token));
    await eventually(() => expect(service.counters.searchesInFlight).toBe(2));
    await service.close();
    // Resolved with neither search answered: the hanging one never would be, the waiting one not for a minute.
    expect(service.counters).toMatchObject({ searchRequests: 2, searchesAnswered: 0 });
    expect(await Promise.all([hanging.outcome, waiting.outcome])).toEqual(['failed', 'failed']);
    expect(service.counters.searchesAnswered).toBe(0);
    await service.close();
    await expect(send(`${service.url}/v1/oauth/token`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
