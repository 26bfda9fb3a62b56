import { startLookupService, type LookupService } from '../../src/lookup-service/index.js';
import type { GatewayConfig } from '../../src/gateway/config/gateway-config.js';
import { HarnessChild } from '../harness/child-process.js';
import type { GatewayStarted, GatewayStats } from '../harness/protocol.js';
import { send, type HttpAnswer } from './http.js';

/**
 * A gateway whose heap a test can measure: in a process of its own (test/harness/gateway-child.ts, started with
 * --expose-gc), where nothing but the gateway allocates between two readings, in front of the embedded lookup service
 * run in the test process. In the test process itself, what else a loaded run does moved heap figures past their bounds.
 */
export interface MeasuredGateway {
  url: string;
  /** The child's heap in use once everything unreachable is collected, and the bytes the gateway's caches count. */
  collected(): Promise<GatewayStats>;
  /** Posts any JSON body to /graphql (a string as it is). */
  post(body: unknown): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export async function startMeasuredGateway(settings: Partial<GatewayConfig>): Promise<MeasuredGateway> {
  const lookup: LookupService = await startLookupService();
  let child: HarnessChild | undefined;
  try {
    child = await HarnessChild.spawn({
      name: 'measured-gateway',
      script: 'test/harness/gateway-child.ts',
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        UPSTREAM_URL: lookup.url,
        UPSTREAM_CLIENT_ID: lookup.credentials.clientId,
        UPSTREAM_CLIENT_SECRET: lookup.credentials.clientSecret,
      },
      stdout: 'ignore',
    });
    const { graphqlUrl, url } = await child.call<GatewayStarted>('start', { settings: { port: 0, ...settings }, log: 'count' });
    const running = child;
    return {
      url,
      collected: () => running.call<GatewayStats>('gc'),
      post: (body) =>
        send(graphqlUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      close: async () => {
        await running.stop();
        await lookup.close();
      },
    };
  } catch (error) {
    await child?.stop();
    await lookup.close();
    throw error;
  }
}
