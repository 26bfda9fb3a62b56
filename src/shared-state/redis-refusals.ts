import type { RedisTarget } from './redis-target.js';

/**
 * Why Redis may answer and still not serve a fleet: each a setting to change,
 * not an outage to wait out. One per label value of `csg_redis_refused`.
 */
export const REDIS_REFUSAL_CAUSES = [
  'wrong_password',
  'no_permission',
  'read_only_replica',
  'cluster_node',
  'not_cluster',
  'not_sentinel',
  'unknown_master',
  'no_scripts',
  'out_of_memory',
] as const;

export type RedisRefusalCause = (typeof REDIS_REFUSAL_CAUSES)[number];

/** What stops an instance from sharing: the cause, and a sentence saying what to change (naming no host and no secret). */
export interface RedisRefusal {
  cause: RedisRefusalCause;
  /** The setting (or Redis's own configuration) to change. */
  setting: string;
  fix: string;
}

const REFUSALS: Record<RedisRefusalCause, Omit<RedisRefusal, 'cause'>> = {
  wrong_password: {
    setting: 'REDIS_URL',
    fix: 'Redis refused the user or password: correct them in REDIS_URL (with redis-sentinel://, REDIS_SENTINEL_PASSWORD for the sentinels)',
  },
  no_permission: {
    setting: 'REDIS_URL',
    fix: 'the ACL user in REDIS_URL lacks a command or key the gateway uses: grant what docs/operations.md lists (Running Redis safely), or name another user',
  },
  read_only_replica: {
    setting: 'REDIS_URL',
    fix: 'REDIS_URL names a read-only replica: name the master, or its sentinels (redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER_NAME) so that a failover is followed',
  },
  cluster_node: {
    setting: 'REDIS_URL',
    fix: 'REDIS_URL names one node of a Redis Cluster: write redis-cluster://HOST:PORT[,HOST:PORT…] (rediss-cluster:// for TLS)',
  },
  not_cluster: {
    setting: 'REDIS_URL',
    fix: 'REDIS_URL says redis-cluster:// but the node is not in cluster mode: write redis://HOST:PORT (rediss:// for TLS)',
  },
  not_sentinel: {
    setting: 'REDIS_URL',
    fix: "REDIS_URL says redis-sentinel:// but names no sentinel: list the sentinels' HOST:PORT (26379 unless set otherwise)",
  },
  unknown_master: {
    setting: 'REDIS_URL',
    fix: 'the sentinels monitor no master of the name after the last / of REDIS_URL: write the name their `sentinel monitor` line gives',
  },
  no_scripts: {
    setting: 'REDIS_URL',
    fix: 'the server REDIS_URL names runs no scripts (a sentinel, or a proxy without EVAL): name a Redis node, or the sentinels with redis-sentinel://…/MASTER_NAME',
  },
  out_of_memory: {
    setting: 'maxmemory-policy (Redis)',
    fix: 'Redis is at its maxmemory and evicts nothing: raise maxmemory, or set maxmemory-policy to volatile-lru (every key the gateway writes expires)',
  },
};

/** Answers that mean the part of Redis a key lives on is away for now (a failover under way, a node loading): an outage, not a refusal. */
const PASSING = /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|BUSY)\b/;

/** Whether Redis's answer `message` tells of an outage that will pass (see PASSING). */
export function isPassing(message: string): boolean {
  return PASSING.test(message);
}

/**
 * What an error from Redis or node-redis says about sharing: a refusal (a
 * setting to change), or nothing it can tell (a lost connection, an answer
 * that will pass). Redis's own words, matched anywhere in the message: a
 * script's error wraps the command's.
 */
export function refusalOf(error: unknown, topology: RedisTarget['topology']): RedisRefusal | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (PASSING.test(message)) return undefined;
  const cause = causeOf(message, topology);
  return cause === undefined ? undefined : { cause, ...REFUSALS[cause] };
}

function causeOf(message: string, topology: RedisTarget['topology']): RedisRefusalCause | undefined {
  if (/WRONGPASS|NOAUTH|invalid password|without any password configured|invalid username-password/i.test(message)) return 'wrong_password';
  // Refused outside a script (NOPERM), or inside one (Redis 7.0 words it apart).
  if (/NOPERM|The user executing the script can't/.test(message)) return 'no_permission';
  if (/READONLY/.test(message)) return 'read_only_replica';
  if (/cluster support disabled/i.test(message)) return 'not_cluster';
  if (/No such master with that name/i.test(message)) return 'unknown_master';
  if (/unknown command .?sentinel/i.test(message)) return 'not_sentinel';
  if (/unknown command .?(evalsha|eval|script)/i.test(message)) return 'no_scripts';
  if (topology !== 'cluster' && /^(CROSSSLOT|MOVED|ASK)\b/.test(message)) return 'cluster_node';
  if (/\bOOM command not allowed/.test(message)) return 'out_of_memory';
  return undefined;
}
