import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/gateway/limits/rate-limiter.js';
import { SharedRateLimiter } from '../../../src/gateway/limits/shared-rate-limiter.js';
import { manualClock } from '../../support/clock.js';
import { collectedLog } from '../../support/log-lines.js';
import { startRedisStore } from '../../support/redis-server.js';
import { SAFETY_MS, within } from '../../support/within.js';

let started: Awaited<ReturnType<typeof startRedisStore>> | undefined;
afterEach(async () => {
  await started?.close();
  started = undefined;
});

describe('the fleet-wide rate limit', () => {
  it("counts every request in this instance's own bucket too, so that a client over its rate finds no fresh burst when Redis goes away", async () => {
    const log = collectedLog();
    // One clock for the fleet's bucket and this instance's, standing still: nothing refills.
    const clock = manualClock();
    started = await startRedisStore(log, clock);
    const limiter = new SharedRateLimiter(new RateLimiter({ perMinute: 1, burst: 2, maxClients: 10 }, clock), started.store, 1);
    expect(await limiter.take('client')).toEqual({ allowed: true });
    expect(await limiter.take('client')).toEqual({ allowed: true });
    expect(await limiter.take('client')).toMatchObject({ allowed: false });
    const outage = log.next('Redis unavailable');
    await started.redis.kill();
    await within(outage, SAFETY_MS, 'the store to go on alone');
    // This instance decides alone now, from a bucket that has seen the client's burst.
    expect(await limiter.take('client')).toMatchObject({ allowed: false });
    // Another client, never seen, has its burst here.
    expect(await limiter.take('another client')).toEqual({ allowed: true });
  });
});
