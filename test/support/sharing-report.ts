import type { RunningGateway } from '../../src/gateway/server.js';
import { send } from './http.js';
import { scrape } from './metrics.js';

/** What an instance says of its sharing: /ready's Redis fields, and the Redis gauges (a gateway started with METRICS_PORT). */
export interface SharingReport {
  status: number;
  redis: string | undefined;
  redisProblem: string | undefined;
  sharingGauge: number | undefined;
  /** The cause `csg_redis_refused` is 1 for, if any. */
  refusedCause: string | undefined;
}

export async function sharingReport(gateway: RunningGateway): Promise<SharingReport> {
  const ready = await send(`${gateway.url}/ready`);
  const body = JSON.parse(ready.text) as { redis?: string; redisProblem?: string };
  const { series } = await scrape(gateway.metricsUrl!);
  const refused = [...series].find(([name, value]) => name.startsWith('csg_redis_refused{') && value === 1)?.[0];
  return {
    status: ready.status,
    redis: body.redis,
    redisProblem: body.redisProblem,
    sharingGauge: series.get('csg_redis_sharing'),
    refusedCause: refused && /cause="([^"]+)"/.exec(refused)?.[1],
  };
}
