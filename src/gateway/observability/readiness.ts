import type { ServerResponse } from 'node:http';
import type { UpstreamStatus } from '../../upstream/observer.js';
import type { Clock } from '../../upstream/resilience/clock.js';
import type { SharingState } from '../shared-store.js';

const LIVE_BODY = '{"status":"live"}';

/** What /health answers while the process runs: liveness, which nothing but a stuck process fails. */
export function answerLive(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': LIVE_BODY.length,
    'cache-control': 'no-store',
  });
  response.end(LIVE_BODY);
}

export interface ReadinessAnswer {
  status: 'ready' | 'draining';
  upstream: {
    /** `refused`: the credentials (UPSTREAM_CLIENT_ID and its secret) were refused; `failing`: the token endpoint failed otherwise. */
    token: UpstreamStatus['token']['state'];
    tokenExpiresInSeconds?: number;
    circuit: UpstreamStatus['circuit'];
  };
  /** With REDIS_URL: `connected`; `unavailable` while Redis is taken to be away, `refused` while it refuses what sharing needs. */
  redis?: 'connected' | 'unavailable' | 'refused';
  /** While Redis refuses: why, and the setting to change. */
  redisProblem?: string;
}

/**
 * What /ready answers: 200 while the gateway takes traffic, 503 from the
 * moment it starts draining (a stop signal), so that a load balancer stops
 * sending it requests before it stops accepting them. The upstream's state is
 * reported, never judged: an upstream outage or refused credentials hit every
 * instance alike, and failing readiness for them would pull them all at once,
 * where each can still answer from its caches; so would a Redis outage, which
 * every instance rides out alone.
 */
export class Readiness {
  readonly #upstream: () => UpstreamStatus;
  readonly #clock: Clock;
  readonly #redisSharing: (() => SharingState) | undefined;
  #draining = false;

  /** `redisSharing`, with REDIS_URL: whether this instance shares now; reported like the upstream, never held against readiness. */
  constructor(upstream: () => UpstreamStatus, clock: Clock, redisSharing?: () => SharingState) {
    this.#upstream = upstream;
    this.#clock = clock;
    this.#redisSharing = redisSharing;
  }

  get draining(): boolean {
    return this.#draining;
  }

  startDraining(): void {
    this.#draining = true;
  }

  state(): ReadinessAnswer {
    const { token, circuit } = this.#upstream();
    return {
      status: this.#draining ? 'draining' : 'ready',
      upstream: {
        token: token.state,
        ...(token.expiresAt === undefined ? {} : { tokenExpiresInSeconds: Math.round((token.expiresAt - this.#clock()) / 1000) }),
        circuit,
      },
      ...(this.#redisSharing === undefined ? {} : redisAnswer(this.#redisSharing())),
    };
  }

  answer(response: ServerResponse): void {
    const body = JSON.stringify(this.state());
    response.writeHead(this.#draining ? 503 : 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    response.end(body);
  }
}

function redisAnswer(sharing: SharingState): Pick<ReadinessAnswer, 'redis' | 'redisProblem'> {
  if (sharing.state === 'sharing') return { redis: 'connected' };
  if (sharing.state === 'unavailable') return { redis: 'unavailable' };
  return { redis: 'refused', redisProblem: `${sharing.refusal.cause}: ${sharing.refusal.fix}` };
}
