import { tagMatcher } from '../../upstream/cache-tags.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { Alarm } from '../../upstream/resilience/clock.js';
import type { SharedStore } from '../../upstream/shared-store.js';
import type { Logger } from '../logger.js';
import type { ResponseCache } from '../response-cache/response-cache.js';
import { type AdminServer, startAdminServer } from './admin-server.js';
import { FleetPurges } from './fleet-purges.js';

/** Where the admin server listens (ADMIN_HOST, ADMIN_PORT: 0 for any free port) and the token it asks for (ADMIN_TOKEN). */
export interface AdminServerOptions {
  host: string;
  port: number;
  token: string;
}

/** How purges are made: where operators ask for them (unset: nowhere), and how long a purge keeps older windows out of Redis. */
export interface AdminRoomOptions {
  server: AdminServerOptions | undefined;
  /** How long a window may be kept (TTL and the longest stale period). */
  windowKeepMs: number;
}

/** What purges drop from, and how they reach the fleet. */
export interface AdminParts {
  upstream: UpstreamClient;
  responseCache: ResponseCache | undefined;
  shared: SharedStore | undefined;
  logger: Logger;
  /** Sets each next read of the fleet's log of purges; tests ring it when they choose. */
  purgeCheckAlarm: Alarm | undefined;
}

/** Purges, followed across the fleet from start; the admin server that takes them, once started. */
export interface AdminRoom {
  purges: FleetPurges;
  /** Starts the admin server where ADMIN_PORT is set; undefined where it is not. */
  listen(): Promise<AdminServer | undefined>;
  close(): void;
}

/**
 * Purges as the settings configure them: this instance's windows and answers
 * dropped by tag, the fleet told through Redis (FleetPurges, following the
 * fleet's log from now on), and the admin server that takes purges from
 * operators (ADMIN_PORT, ADMIN_HOST, ADMIN_TOKEN).
 */
export async function openAdminRoom(options: AdminRoomOptions, parts: AdminParts): Promise<AdminRoom> {
  const { upstream, responseCache, logger } = parts;
  const purges = new FleetPurges({
    store: parts.shared,
    caches: {
      purge(tag) {
        const matcher = tagMatcher(tag);
        return matcher && { windows: upstream.purge(matcher), answers: responseCache?.purge(tag) ?? 0 };
      },
    },
    log: logger,
    windowKeepMs: options.windowKeepMs,
    alarm: parts.purgeCheckAlarm,
  });
  await purges.start();
  return {
    purges,
    listen: async () => options.server && startAdminServer({ ...options.server, purges, logger }),
    close: () => purges.close(),
  };
}
