import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LookupService, startLookupService } from '../../../src/lookup-service/index.js';
import { GatewayProcess, LOG_LEVEL, type LogEntry } from '../../support/gateway-process.js';
import { send } from '../../support/http.js';
import { MountedVolume } from '../../support/mounted-volume.js';
import { within } from '../../support/within.js';

/**
 * The gateway as `npm start` runs it, its API keys, JWT secret and trusted
 * documents in folders laid out and updated as Kubernetes does a mounted
 * Secret or ConfigMap, rotated while a bounded load of clients calls it.
 */

const KEYS = {
  first: 'first-key-0123456789abcdef0123456789abcdef',
  second: 'second-key-0123456789abcdef0123456789abcdef',
  third: 'third-key-0123456789abcdef0123456789abcdef',
  fourth: 'fourth-key-0123456789abcdef0123456789abcdef',
};
const JWT = { issuer: 'https://auth.example.com/', audience: 'company-search' };
const JWT_SECRETS = ['jwt-secret-one-0123456789abcdef0123456789', 'jwt-secret-two-0123456789abcdef0123456789'];
const DOCUMENTS = { a: 'query ReloadA { __typename }', b: 'query ReloadB { __typename }' };
const idOf = (document: string) => `sha256:${createHash('sha256').update(document).digest('hex')}`;
const manifestOf = (...documents: string[]) => JSON.stringify(Object.fromEntries(documents.map((document) => [idOf(document), document])));

const TEST_TIMEOUT_MS = 90_000;
/** Requests each phase of a rotation completes at least, so that the load really runs across each reload. */
const PER_PHASE = 50;

const root = mkdtempSync(join(tmpdir(), 'reload-'));
let lookup: LookupService;
let gateway: GatewayProcess;
/** Three Secrets mounted in turn: the API keys are read through `current`, a link to one of them. */
const secrets: Record<'a' | 'b' | 'c', MountedVolume> = {} as never;
let upstreamSecret: string;
let jwtVolume: MountedVolume;
let manifests: MountedVolume;
const keysFile = join(root, 'current', 'gateway-api-keys');

/** The keys file's content, as operators write it: `id:key` pairs. */
const keyList = (...ids: (keyof typeof KEYS)[]) => `${ids.map((id) => `${id}:${KEYS[id]}`).join(',')}\n`;

beforeAll(async () => {
  lookup = await startLookupService();
  upstreamSecret = lookup.credentials.clientSecret;
  secrets.a = new MountedVolume(join(root, 'a'), { 'gateway-api-keys': keyList('first'), 'upstream-client-secret': upstreamSecret });
  symlinkSync('a', join(root, 'current'));
  jwtVolume = new MountedVolume(join(root, 'jwt'), { 'jwt-secret': JWT_SECRETS[0]! });
  manifests = new MountedVolume(join(root, 'manifests'), { 'web.json': manifestOf(DOCUMENTS.a) });
  gateway = await GatewayProcess.start({
    LOG_LEVEL: 'debug',
    UPSTREAM_URL: lookup.url,
    UPSTREAM_CLIENT_ID: lookup.credentials.clientId,
    UPSTREAM_CLIENT_SECRET_FILE: join(root, 'current', 'upstream-client-secret'),
    GATEWAY_API_KEYS_FILE: keysFile,
    JWT_ISSUER: JWT.issuer,
    JWT_AUDIENCE: JWT.audience,
    JWT_SECRET_FILE: jwtVolume.path('jwt-secret'),
    TRUSTED_DOCUMENTS: manifests.dir,
    ALLOW_ARBITRARY_OPERATIONS: 'true',
    // The load is one client per key, far over any sensible rate: this test is about keys, not rates.
    RATE_LIMIT_PER_MINUTE: '0',
  });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  gateway?.kill();
  await lookup?.close();
  rmSync(root, { recursive: true, force: true });
});

/** `{ __typename }` with `headers`: 200 with its answer, or the status and code of the refusal. */
async function call(headers: Record<string, string>, body: object = { query: '{ __typename }' }): Promise<string> {
  const answer = await send(gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify(body),
  });
  const parsed = JSON.parse(answer.text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  return answer.status === 200 && parsed.errors === undefined ? '200' : `${answer.status} ${parsed.errors?.[0]?.extensions?.code}`;
}
const withKey = (id: keyof typeof KEYS) => call({ 'x-api-key': KEYS[id] });

/** The reload line logged after `from`, at info level or above. */
const reloaded = (from: number, prefix = 'Reloaded') =>
  gateway.line((entry) => entry.msg.startsWith(prefix) && entry.level >= LOG_LEVEL.info, from);

/**
 * Four clients calling the gateway one request after another, each request
 * made by whatever `next` is when it is sent (the test moves it on between
 * phases), until stopped; at most 20,000 requests in all.
 */
function load(first: () => Promise<string>) {
  const outcomes: { phase: number; outcome: string }[] = [];
  let next = first;
  let phase = 0;
  let stopped = false;
  let waiting: { count: number; resolve: () => void } | undefined;
  const client = async () => {
    while (!stopped && outcomes.length < 20_000) {
      const sentIn = phase;
      const outcome = await next();
      outcomes.push({ phase: sentIn, outcome });
      if (waiting && outcomes.filter((done) => done.phase === phase).length >= waiting.count) waiting.resolve();
    }
  };
  const clients = Promise.all([client(), client(), client(), client()]);
  return {
    outcomes,
    /** From now on requests are made by `make`. */
    switchTo(make: () => Promise<string>) {
      next = make;
      phase += 1;
    },
    /** Resolves once PER_PHASE requests sent in the current phase have been answered. */
    phaseDone(): Promise<void> {
      const done = new Promise<void>((resolve) => {
        waiting = { count: PER_PHASE, resolve };
      });
      if (outcomes.filter((outcome) => outcome.phase === phase).length >= PER_PHASE) waiting!.resolve();
      return within(done, 30_000, `${PER_PHASE} requests of phase ${phase}`);
    },
    async stop() {
      stopped = true;
      await clients;
    },
  };
}

describe('reloading API keys, the JWT secret and trusted documents (src/main.ts)', () => {
  it('reads its key from the mounted Secret, and watches the folders that Kubernetes updates', async () => {
    expect(await withKey('first')).toBe('200');
    expect(await withKey('second')).toBe('401 UNAUTHENTICATED');
    expect(await call({})).toBe('401 UNAUTHENTICATED');
    // The start's own check found nothing changed since the configuration was read.
    expect(gateway.since(0, 'Reload').map((entry) => [entry.level, entry.msg])).toEqual([
      [LOG_LEVEL.debug, 'Reload after start: nothing changed'],
    ]);
  });

  it(
    'rotates a key by a ..data swap, with no signal, under load: no request fails, and the old key is refused once the reload is logged',
    async () => {
      const traffic = load(() => withKey('first'));
      await traffic.phaseDone();
      // As operators rotate: the new key beside the old, clients moved to the new one, then the old one removed.
      let mark = gateway.mark();
      secrets.a.update({ 'gateway-api-keys': keyList('first', 'second'), 'upstream-client-secret': upstreamSecret });
      const added = await reloaded(mark);
      expect(added).toMatchObject({ msg: 'Reloaded on a file change: GATEWAY_API_KEYS_FILE (added second)', trigger: 'file change' });
      traffic.switchTo(() => withKey('second'));
      await traffic.phaseDone();

      // A request already let in (its `100 Continue` sent) with the key about to go: it finishes, under the policy it began with.
      const inFlight = await heldRequest({ 'x-api-key': KEYS.first });
      mark = gateway.mark();
      secrets.a.update({ 'gateway-api-keys': keyList('second'), 'upstream-client-secret': upstreamSecret });
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (removed first)');
      expect(await withKey('first')).toBe('401 UNAUTHENTICATED');
      expect(await inFlight.finish()).toBe(200);
      await traffic.phaseDone();
      await traffic.stop();

      expect(traffic.outcomes.filter(({ outcome }) => outcome !== '200')).toEqual([]);
      expect(new Set(traffic.outcomes.map(({ phase }) => phase))).toEqual(new Set([0, 1]));
      expect(await withKey('second')).toBe('200');
      // One line for each update: kubelet's four or five events each time were read once.
      expect(gateway.since(0, 'Reloaded').length).toBe(2);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'rotates a key by a link above the Secret swapped (current -> b, then c), with no signal, under load: no request fails',
    async () => {
      // As a deploy tool that keeps versions side by side swaps a `current` link: the folder holding it is watched.
      const pointTo = (volume: 'b' | 'c') => {
        symlinkSync(volume, join(root, 'next'));
        renameSync(join(root, 'next'), join(root, 'current'));
      };
      const traffic = load(() => withKey('second'));
      await traffic.phaseDone();
      secrets.b = new MountedVolume(join(root, 'b'), {
        'gateway-api-keys': keyList('second', 'third'),
        'upstream-client-secret': upstreamSecret,
      });
      let mark = gateway.mark();
      pointTo('b');
      expect(await reloaded(mark)).toMatchObject({
        msg: 'Reloaded on a file change: GATEWAY_API_KEYS_FILE (added third)',
        trigger: 'file change',
      });
      traffic.switchTo(() => withKey('third'));
      await traffic.phaseDone();
      secrets.c = new MountedVolume(join(root, 'c'), { 'gateway-api-keys': keyList('third'), 'upstream-client-secret': upstreamSecret });
      mark = gateway.mark();
      pointTo('c');
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (removed second)');
      expect(await withKey('second')).toBe('401 UNAUTHENTICATED');
      await traffic.phaseDone();
      await traffic.stop();
      expect(traffic.outcomes.filter(({ outcome }) => outcome !== '200')).toEqual([]);

      // The folder the link leads to now is watched: its next update is seen too.
      mark = gateway.mark();
      secrets.c.update({ 'gateway-api-keys': keyList('third', 'fourth'), 'upstream-client-secret': upstreamSecret });
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (added fourth)');
      expect(await withKey('fourth')).toBe('200');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'rotates a key on SIGHUP where no watch hears the change, under load: no request fails',
    async () => {
      // As on a file system that reports no events: the keys written through a hard link in a folder nobody watches.
      const unwatched = join(root, 'unwatched-gateway-api-keys');
      linkSync(realpathSync(keysFile), unwatched);
      const traffic = load(() => withKey('third'));
      await traffic.phaseDone();
      const first = gateway.mark();
      let mark = first;
      writeFileSync(unwatched, keyList('third', 'fourth', 'first'));
      gateway.signal('SIGHUP');
      expect(await reloaded(mark)).toMatchObject({ msg: 'Reloaded on SIGHUP: GATEWAY_API_KEYS_FILE (added first)', trigger: 'SIGHUP' });
      traffic.switchTo(() => withKey('first'));
      await traffic.phaseDone();
      // The clients moved off the key before it goes.
      traffic.switchTo(() => withKey('fourth'));
      await traffic.phaseDone();
      mark = gateway.mark();
      writeFileSync(unwatched, keyList('third', 'fourth'));
      gateway.signal('SIGHUP');
      expect((await reloaded(mark)).msg).toBe('Reloaded on SIGHUP: GATEWAY_API_KEYS_FILE (removed first)');
      expect(await withKey('first')).toBe('401 UNAUTHENTICATED');
      await traffic.phaseDone();
      await traffic.stop();
      expect(traffic.outcomes.filter(({ outcome }) => outcome !== '200')).toEqual([]);
      // Nothing but the signals read them: no line on a file change since the first write.
      expect(gateway.since(first, 'Reload').filter((entry) => entry.trigger === 'file change')).toEqual([]);
      rmSync(unwatched);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers a SIGHUP that changes nothing with one line an operator sees, and goes on serving',
    async () => {
      const mark = gateway.mark();
      gateway.signal('SIGHUP');
      const line = await gateway.line((entry) => entry.msg.startsWith('Reload'), mark);
      expect([line.level, line.msg]).toEqual([LOG_LEVEL.info, 'Reload on SIGHUP: nothing changed']);
      expect(await withKey('third')).toBe('200');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'takes a new JWT secret from a ..data swap: a token signed with it passes, one signed with the old one no longer does',
    async () => {
      const [before, after] = await Promise.all(JWT_SECRETS.map((secret) => tokenSignedWith(secret)));
      expect(await call({ authorization: `Bearer ${before}` })).toBe('200');
      expect(await call({ authorization: `Bearer ${after}` })).toBe('401 UNAUTHENTICATED');
      const mark = gateway.mark();
      jwtVolume.update({ 'jwt-secret': JWT_SECRETS[1]! });
      const line = await reloaded(mark);
      expect(line.msg).toBe('Reloaded on a file change: JWT_SECRET_FILE (changed)');
      expect(await call({ authorization: `Bearer ${after}` })).toBe('200');
      expect(await call({ authorization: `Bearer ${before}` })).toBe('401 UNAUTHENTICATED');
      expect(JSON.stringify(gateway.lines)).not.toContain(JWT_SECRETS[1]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'takes a new manifest from a ..data swap under load: its document runs, no request fails, and a document removed is refused',
    async () => {
      const run = (document: string) => () => call({ 'x-api-key': KEYS.third }, { documentId: idOf(document) });
      expect(await run(DOCUMENTS.b)()).toBe('400 TRUSTED_DOCUMENT_NOT_FOUND');
      const traffic = load(run(DOCUMENTS.a));
      await traffic.phaseDone();
      let mark = gateway.mark();
      manifests.update({ 'web.json': manifestOf(DOCUMENTS.a, DOCUMENTS.b) });
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: TRUSTED_DOCUMENTS (1 document added, 0 removed)');
      traffic.switchTo(run(DOCUMENTS.b));
      await traffic.phaseDone();
      mark = gateway.mark();
      manifests.update({ 'web.json': manifestOf(DOCUMENTS.b) });
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: TRUSTED_DOCUMENTS (0 documents added, 1 removed)');
      expect(await run(DOCUMENTS.a)()).toBe('400 TRUSTED_DOCUMENT_NOT_FOUND');
      await traffic.phaseDone();
      await traffic.stop();
      expect(traffic.outcomes.filter(({ outcome }) => outcome !== '200')).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'keeps the settings in use when a new file does not parse, in one line naming the file and the problem, never the secret',
    async () => {
      let mark = gateway.mark();
      const broken = `third:${KEYS.third},${KEYS.fourth}\n`;
      secrets.c.update({ 'gateway-api-keys': broken, 'upstream-client-secret': upstreamSecret });
      const refused = await gateway.line((entry) => entry.msg.startsWith('Reload on a file change refused'), mark);
      expect(refused.level).toBe(LOG_LEVEL.warn);
      expect(refused.msg).toBe(
        'Reload on a file change refused, the settings in use are kept: GATEWAY_API_KEYS entry 2 must be id:key: a name for the client (used in logs and rate limits), a colon, then the key, such as web:<the output of openssl rand -hex 32>' +
          ` (GATEWAY_API_KEYS_FILE=${keysFile})`,
      );
      expect(await withKey('fourth')).toBe('200');
      expect(await withKey('third')).toBe('200');

      // The same problem found again by the next change in the folder is not logged again.
      secrets.c.update({ 'gateway-api-keys': broken, 'upstream-client-secret': upstreamSecret, unrelated: 'x' });
      const again = await gateway.line(
        (entry) => entry.msg.startsWith('Reload on a file change refused'),
        gateway.lines.indexOf(refused) + 1,
      );
      expect(again.level).toBe(LOG_LEVEL.debug);
      expect(gateway.since(mark, 'Reload').filter((entry) => entry.level >= LOG_LEVEL.info)).toHaveLength(1);
      expect(JSON.stringify(gateway.lines)).not.toMatch(/fourth-key|third-key/);

      // Mended, it is taken.
      mark = gateway.mark();
      secrets.c.update({ 'gateway-api-keys': keyList('fourth'), 'upstream-client-secret': upstreamSecret });
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (removed third)');
      expect(await withKey('third')).toBe('401 UNAUTHENTICATED');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'says that a secret which applies only at a restart changed, and applies nothing of it',
    async () => {
      const mark = gateway.mark();
      secrets.c.update({ 'gateway-api-keys': keyList('fourth'), 'upstream-client-secret': 'another-secret-0123456789' });
      const line = await gateway.line((entry) => entry.msg.startsWith('Nothing reloaded'), mark);
      expect(line).toMatchObject({
        level: LOG_LEVEL.warn,
        msg: 'Nothing reloaded on a file change: UPSTREAM_CLIENT_SECRET_FILE changed, which applies only at a restart',
        restartToApply: ['UPSTREAM_CLIENT_SECRET_FILE'],
      });
      expect(JSON.stringify(line)).not.toContain('another-secret');
      // Still the token of the secret it started with: searches go on.
      const search = await call(
        { 'x-api-key': KEYS.fourth },
        { query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount } }' },
      );
      expect(search).toBe('200');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reads the keys again when their folder is removed and made again, with no signal: a key left out is refused',
    async () => {
      let mark = gateway.mark();
      rmSync(join(root, 'c'), { recursive: true });
      const refused = await gateway.line((entry) => entry.msg.startsWith('Reload on a file change refused'), mark);
      expect(refused.level).toBe(LOG_LEVEL.warn);
      // Refused: the keys in use are kept.
      expect(await withKey('fourth')).toBe('200');
      mark = gateway.mark();
      mkdirSync(join(root, 'c'));
      writeFileSync(join(root, 'c', 'upstream-client-secret'), upstreamSecret);
      writeFileSync(join(root, 'c', 'gateway-api-keys'), keyList('first'));
      expect((await reloaded(mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (added first; removed fourth)');
      expect(await withKey('fourth')).toBe('401 UNAUTHENTICATED');
      expect(await withKey('first')).toBe('200');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops on SIGTERM with exit 0, its watches gone with it',
    async () => {
      gateway.signal('SIGTERM');
      expect(await within(gateway.exited, 30_000, 'the gateway to exit')).toEqual({ code: 0, signal: null });
      expect(gateway.lines.at(-1)?.msg).toBe('Stopped');
      expect(gateway.lines.filter((entry: LogEntry) => entry.level >= LOG_LEVEL.error)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('SIGHUP with nothing to reload', () => {
  it(
    'does not end the gateway, as Node would by default',
    async () => {
      const bare = await GatewayProcess.start({ LOG_LEVEL: 'debug' });
      try {
        const mark = bare.mark();
        bare.signal('SIGHUP');
        expect((await bare.line((entry) => entry.msg.startsWith('Reload'), mark)).msg).toBe('Reload on SIGHUP: nothing changed');
        expect((await send(bare.graphqlUrl.replace('/graphql', '/health'))).status).toBe(200);
        bare.signal('SIGTERM');
        expect(await within(bare.exited, 30_000, 'the gateway to exit')).toEqual({ code: 0, signal: null });
      } finally {
        bare.kill();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

async function tokenSignedWith(secret: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(JWT.issuer)
    .setAudience(JWT.audience)
    .setSubject('reload-test')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(secret));
}

/**
 * A POST whose headers are sent with `Expect: 100-continue`: the gateway
 * answers `100 Continue` only once every check in front of GraphQL, its
 * access check among them, has passed. Resolves then; `finish()` sends the
 * body and resolves with the status.
 */
function heldRequest(headers: Record<string, string>): Promise<{ finish(): Promise<number> }> {
  const body = JSON.stringify({ query: '{ __typename }' });
  const url = new URL(gateway.graphqlUrl);
  return within(
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      const answered = new Promise<number>((settle, fail) => {
        outgoing.once('response', (response) => {
          response.resume();
          response.once('end', () => settle(response.statusCode!));
        });
        outgoing.once('error', fail);
      });
      outgoing.once('error', reject);
      outgoing.once('continue', () =>
        resolve({
          finish: () => {
            outgoing.end(body);
            return within(answered, 30_000, 'the held request to be answered');
          },
        }),
      );
      outgoing.flushHeaders();
    }),
    30_000,
    '100 Continue',
  );
}
