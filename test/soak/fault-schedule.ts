import { setTimeout as sleep } from 'node:timers/promises';
import type { CompanyResult, LookupServiceKnobs } from '../../src/lookup-service/index.js';
import { SOAK_GATEWAY_SETTINGS } from './settings.js';

/** One stretch of the schedule: what the upstream does wrong, if anything. */
export interface Phase {
  name: string;
  /** Switches the fault on; may return what switches off anything it keeps doing. */
  // biome-ignore lint/suspicious/noConfusingVoidType: `| void` lets a phase that keeps nothing running be a plain statement; `| undefined` would need an explicit return in each.
  apply(knobs: LookupServiceKnobs): (() => void) | void;
}

const TOKEN_LIFETIME_SECONDS = 3_600;
const SHORT_TOKEN_LIFETIME_SECONDS = 1;
const REVOKE_EVERY_MS = 1_500;
const SLOW_LATENCY_MS = 300;
/** Searches a partner may make per second in the throttled phase; the rest get 429 without Retry-After. */
const THROTTLED_QUOTA = { limit: 10, windowMs: 1_000 };

const healthy = (name: string): Phase => ({ name, apply: () => undefined });

/** The cycle the soak run repeats; it starts healthy, and the run adds a healthy phase at the end. */
export const FAULT_CYCLE: readonly Phase[] = [
  healthy('healthy'),
  {
    name: '5xx burst',
    apply: (knobs) => {
      knobs.failSearch({ status: 500 }, 5);
      knobs.failSearch({ status: 502 }, 5);
      knobs.failSearch({ status: 503 }, Infinity);
    },
  },
  healthy('healthy after 5xx'),
  { name: '429 Retry-After: 1', apply: (knobs) => knobs.failSearch({ status: 429, headers: { 'retry-after': '1' } }, Infinity) },
  {
    name: '429 quota, no Retry-After',
    apply: (knobs) => {
      knobs.quota = THROTTLED_QUOTA;
    },
  },
  // Not a failure: slow enough that the upstream concurrency limit fills and requests queue.
  {
    name: 'slow upstream (300 ms)',
    apply: (knobs) => {
      knobs.searchLatencyMs = SLOW_LATENCY_MS;
    },
  },
  {
    name: 'slow beyond deadline',
    apply: (knobs) => {
      knobs.searchLatencyMs = SOAK_GATEWAY_SETTINGS.requestDeadlineMs + 1_500;
    },
  },
  { name: 'dropped connections', apply: (knobs) => knobs.failSearch({ kind: 'drop-connection' }, Infinity) },
  { name: 'malformed JSON', apply: (knobs) => knobs.failSearch({ kind: 'malformed-json' }, Infinity) },
  {
    name: 'token endpoint 503',
    apply: (knobs) => {
      knobs.failToken({ status: 503 }, Infinity);
      // The gateway's token is still good for an hour; revoking it makes the gateway need the failing endpoint.
      knobs.revokeTokens();
    },
  },
  {
    name: 'token revoked',
    apply: (knobs) => {
      knobs.revokeTokens();
      const timer = setInterval(() => knobs.revokeTokens(), REVOKE_EVERY_MS);
      return () => clearInterval(timer);
    },
  },
  {
    name: 'short token lifetime',
    apply: (knobs) => {
      knobs.tokenLifetimeSeconds = SHORT_TOKEN_LIFETIME_SECONDS;
      // Only tokens issued from now on are short-lived, so the current one goes.
      knobs.revokeTokens();
    },
  },
  {
    name: 'malformed fields',
    apply: (knobs) => {
      knobs.mapResults = malformFields;
    },
  },
];

export const FINAL_PHASE = healthy('healthy (final)');

/** Switches `phase` on for `ms`, from a healthy upstream, and off again. */
export async function runPhase(knobs: LookupServiceKnobs, phase: Phase, ms: number): Promise<void> {
  makeHealthy(knobs);
  const switchOff = phase.apply(knobs);
  await sleep(ms);
  switchOff?.();
}

export function makeHealthy(knobs: LookupServiceKnobs): void {
  knobs.clearFaults();
  knobs.searchLatencyMs = 0;
  knobs.tokenLatencyMs = 0;
  knobs.tokenLifetimeSeconds = TOKEN_LIFETIME_SECONDS;
  knobs.quota = undefined;
}

/**
 * Every kind of odd field the issue names, spread over the results: wrong
 * types and formats, a result without a name, statuses and countries in
 * words, and a field the gateway does not know.
 */
function malformFields(results: CompanyResult[]): unknown[] {
  return results.map((result, index) => {
    const extended = { ...result, soakUnknownField: { nested: true } };
    const address = result.addressStructured;
    switch (index % 8) {
      case 1:
        return { ...extended, incorporatedDate: 'last Tuesday' };
      case 2:
        return { ...extended, isPlatformMember: 'yes' };
      case 3:
        return { ...extended, status: 'Actively trading', addressStructured: address && { ...address, country: 'United Kingdom' } };
      case 4:
        return { ...extended, addressStructured: address && { ...address, latitude: 'north' } };
      case 5:
        return { ...extended, previousNames: 'none' };
      case 6:
        return { ...extended, name: null };
      case 7:
        return { ...extended, status: 'Gone fishing', avatar: { image: 42, initials: '' } };
      default:
        return extended;
    }
  });
}
