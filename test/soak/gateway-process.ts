import { fileURLToPath } from 'node:url';
import { type Crash, HarnessChild } from '../harness/child-process.js';
import type { GatewayStartParams, GatewayStarted, GatewayStats } from '../harness/protocol.js';
import type { SoakGatewaySettings } from './settings.js';

const GATEWAY_SCRIPT = fileURLToPath(new URL('../harness/gateway-child.ts', import.meta.url));
const STATS_TIMEOUT_MS = 10_000;

export interface GatewayTarget {
  upstream: { url: string; clientId: string; clientSecret: string };
  settings: SoakGatewaySettings;
}

/**
 * The gateway's whole environment: its upstream and port, warnings and above
 * logged (and counted, not printed). Nothing of the developer's shell is
 * inherited, so the gateway runs on its defaults and the soak's settings.
 */
function gatewayEnv({ upstream }: GatewayTarget): Record<string, string> {
  return {
    ...(process.env.PATH === undefined ? {} : { PATH: process.env.PATH }),
    PORT: '0',
    LOG_LEVEL: 'warn',
    UPSTREAM_URL: upstream.url,
    UPSTREAM_CLIENT_ID: upstream.clientId,
    UPSTREAM_CLIENT_SECRET: upstream.clientSecret,
  };
}

/**
 * The gateway in a child process (test/harness/gateway-child.ts), so that a
 * crash or a leak shows in that process alone. When it dies, the death is
 * recorded as a crash and a new child takes its place, so the run goes on and
 * reports every crash rather than stopping at the first.
 */
export class GatewayProcess {
  readonly crashes: Crash[] = [];
  #child: HarnessChild | undefined;
  #graphqlUrl = '';
  #stopping = false;

  private constructor(private readonly target: GatewayTarget) {}

  static async start(target: GatewayTarget): Promise<GatewayProcess> {
    const gateway = new GatewayProcess(target);
    await gateway.#spawn();
    return gateway;
  }

  /** The current child's /graphql URL; it changes when a crashed child is replaced. */
  get graphqlUrl(): string {
    return this.#graphqlUrl;
  }

  /** Memory and log counts of the current child, after a full GC when `gc` is set. */
  async stats(gc: boolean): Promise<Required<GatewayStats>> {
    const child = this.#child;
    if (!child) throw new Error('The gateway child is not running');
    const { log, ...stats } = await child.call<GatewayStats>(gc ? 'gc' : 'stats', undefined, STATS_TIMEOUT_MS);
    if (log === undefined) throw new Error('The gateway child does not count its log lines');
    return { ...stats, log };
  }

  /** Lets the child finish its requests and exit; kills it when it takes too long. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#child?.stop();
  }

  async #spawn(): Promise<void> {
    const child = await HarnessChild.spawn({ name: 'gateway', script: GATEWAY_SCRIPT, env: gatewayEnv(this.target), stdout: 'stderr' });
    this.#child = child;
    void child.exited.then((exit) => {
      if (this.#stopping || this.#child !== child) return;
      this.crashes.push(exit.crash ?? { at: new Date(), origin: 'exit', error: `exited with ${exit.how}` });
      process.stderr.write(`[soak] the gateway child died (${exit.how}); starting a new one\n`);
      this.#spawn().catch((error: unknown) => {
        process.stderr.write(`[soak] could not restart the gateway: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    });
    try {
      const params: GatewayStartParams = { settings: this.target.settings, log: 'count' };
      this.#graphqlUrl = (await child.call<GatewayStarted>('start', params)).graphqlUrl;
    } catch (error) {
      // Not a crash of a running gateway: the caller hears of it.
      this.#child = undefined;
      await child.stop();
      throw error;
    }
  }
}
