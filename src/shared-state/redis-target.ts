/**
 * Which Redis a fleet shares its state through, as REDIS_URL names it: one
 * node (`redis://`), a Redis Cluster (`redis-cluster://`, any of its nodes:
 * node-redis discovers the rest) or the sentinels of a master
 * (`redis-sentinel://…/MASTER_NAME`: node-redis asks them for the master, and
 * follows a failover). The `rediss` forms use TLS. Read here without loading
 * node-redis, so that the settings can be checked and printed without it.
 */
export type RedisTarget = SingleNode | ClusterNodes | SentinelNodes;

export interface SingleNode {
  topology: 'single';
  /** `redis://` or `rediss://`, user and password in it, a database number as its only path. */
  url: URL;
}

interface Credentials {
  tls: boolean;
  /** The ACL user; undefined for the default user. */
  username: string | undefined;
  password: string | undefined;
}

export interface ClusterNodes extends Credentials {
  topology: 'cluster';
  /** Nodes to discover the cluster from (any reachable one will do). */
  nodes: HostPort[];
}

export interface SentinelNodes extends Credentials {
  topology: 'sentinel';
  sentinels: HostPort[];
  /** The name the sentinels monitor the master by. */
  masterName: string;
}

export interface HostPort {
  host: string;
  port: number;
}

/** The schemes REDIS_URL takes, and what each names. */
const SCHEMES: Record<string, { topology: RedisTarget['topology']; tls: boolean }> = {
  'redis:': { topology: 'single', tls: false },
  'rediss:': { topology: 'single', tls: true },
  'redis-cluster:': { topology: 'cluster', tls: false },
  'rediss-cluster:': { topology: 'cluster', tls: true },
  'redis-sentinel:': { topology: 'sentinel', tls: false },
  'rediss-sentinel:': { topology: 'sentinel', tls: true },
};

/** The port of a node, or of a sentinel, named without one. */
const DEFAULT_PORTS = { single: 6379, cluster: 6379, sentinel: 26379 };

export const REDIS_URL_FORMS =
  'redis://[USER:PASSWORD@]HOST[:PORT][/DB], redis-cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…] or redis-sentinel://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]/MASTER_NAME (rediss… for TLS)';

/** The target `raw` names, or why it names none: each reason a sentence naming `name`, never quoting the value. */
export function parseRedisTarget(raw: string, name: string): RedisTarget | string {
  const scheme = /^([a-z-]+:)\/\//.exec(raw)?.[1];
  const form = scheme === undefined ? undefined : SCHEMES[scheme];
  if (scheme === undefined || form === undefined) return `${name} must be one of ${REDIS_URL_FORMS}`;
  if (form.topology === 'single') return parseSingle(raw, name);
  const rest = raw.slice(scheme.length + 2);
  if (/[?#]/.test(rest)) return `${name} must not carry a query or a fragment`;
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const credentials = readCredentials(at === -1 ? '' : authority.slice(0, at), name, form.topology);
  if (typeof credentials === 'string') return credentials;
  const nodes = readHosts(at === -1 ? authority : authority.slice(at + 1), name, DEFAULT_PORTS[form.topology]);
  if (typeof nodes === 'string') return nodes;
  if (form.topology === 'cluster') {
    if (path !== '') return `${name}: a Redis Cluster has only database 0, so a cluster URL names no path`;
    return { topology: 'cluster', tls: form.tls, ...credentials, nodes };
  }
  const masterName = safeDecode(path);
  if (masterName === undefined || !/^[\x21-\x7e]{1,128}$/.test(masterName) || masterName.includes('/')) {
    return `${name} must name the master after the sentinels, as the sentinels know it: redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER_NAME`;
  }
  return { topology: 'sentinel', tls: form.tls, ...credentials, sentinels: nodes, masterName };
}

function parseSingle(raw: string, name: string): SingleNode | string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || url.hostname === '') return `${name} must be one of ${REDIS_URL_FORMS}`;
  if (!/^\/?(\d{1,2})?$/.test(url.pathname) || url.search !== '' || url.hash !== '') {
    return `${name} may name a database number as its path (such as /0), and nothing else after the host`;
  }
  // `redis://secret@host` is a password written where the user goes: it would be printed as a user name, and never sent as a password.
  if (url.username !== '' && url.password === '') return userWithoutPassword(name, 'single');
  return { topology: 'single', url };
}

function userWithoutPassword(name: string, topology: RedisTarget['topology']): string {
  const scheme = topology === 'single' ? 'redis' : `redis-${topology}`;
  return `${name} has a user and no password: write the password after a colon (${scheme}://:PASSWORD@…, or ${scheme}://USER:PASSWORD@…)`;
}

function readCredentials(userInfo: string, name: string, topology: RedisTarget['topology']): Omit<Credentials, 'tls'> | string {
  if (userInfo === '') return { username: undefined, password: undefined };
  const colon = userInfo.indexOf(':');
  if (colon === -1) return userWithoutPassword(name, topology);
  const username = safeDecode(userInfo.slice(0, colon));
  const password = safeDecode(userInfo.slice(colon + 1));
  if (username === undefined || password === undefined)
    return `${name} has a user or password that is not percent-encoded: encode @ : / % as %40 %3A %2F %25`;
  if (password === '') return userWithoutPassword(name, topology);
  return { username: username === '' ? undefined : username, password };
}

function readHosts(list: string, name: string, defaultPort: number): HostPort[] | string {
  const nodes: HostPort[] = [];
  for (const entry of list.split(',')) {
    const probe = URL.canParse(`redis://${entry}`) ? new URL(`redis://${entry}`) : undefined;
    if (entry === '' || probe === undefined || probe.hostname === '' || probe.pathname !== '' || probe.username !== '') {
      return `${name} must list its nodes as HOST:PORT separated by commas, such as redis-cluster://redis-0.internal:6379,redis-1.internal:6379`;
    }
    nodes.push({ host: probe.hostname.replace(/^\[(.*)\]$/, '$1'), port: probe.port === '' ? defaultPort : Number(probe.port) });
  }
  return nodes;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The target as REDIS_URL would name it, its password (if any) replaced by `[redacted]`: what the printed configuration shows. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.topology === 'single') {
    if (target.url.password === '') return target.url.href;
    const shown = new URL(target.url.href);
    shown.password = 'redacted';
    return shown.href.replace(':redacted@', ':[redacted]@');
  }
  const scheme = `${target.tls ? 'rediss' : 'redis'}-${target.topology}://`;
  const user = target.password === undefined ? '' : `${encodeURIComponent(target.username ?? '')}:[redacted]@`;
  const nodes = (target.topology === 'cluster' ? target.nodes : target.sentinels)
    .map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`)
    .join(',');
  return `${scheme}${user}${nodes}${target.topology === 'sentinel' ? `/${encodeURIComponent(target.masterName)}` : ''}`;
}
