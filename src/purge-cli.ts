import { isIPv6 } from 'node:net';
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { PURGE_PATH } from './gateway/admin/admin-server.js';
import { ConfigError, readSettings } from './gateway/config/gateway-config.js';

const USAGE = `Drops cached data across the fleet, through a gateway's admin server (ADMIN_PORT).

  npm run purge -- --jurisdiction GB --q holdings           one search
  npm run purge -- --jurisdiction GB --company 01234567     every search and lookup holding a company
  npm run purge -- --jurisdiction GB                        a jurisdiction
  npm run purge -- --tag csg:c:GB:01234567                  a tag, as GET answers carry it for CDNs
  npm run purge -- --all                                    everything (never the token or rate limits)

  --url URL   the admin server (default: http://ADMIN_HOST:ADMIN_PORT, as the gateway reads them)

The token is ADMIN_TOKEN, or the file ADMIN_TOKEN_FILE names, as the gateway reads it. Prints the gateway's reply;
exits 1 when the purge was refused or could not be sent.
`;

/** Longest wait for the admin server: a purge of everything on a large Redis takes a while, never this long. */
const PURGE_TIMEOUT_MS = 60_000;

/** `npm run purge -- …`: sends one purge to the admin server and prints what it dropped. */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      all: { type: 'boolean' },
      jurisdiction: { type: 'string' },
      q: { type: 'string' },
      company: { type: 'string' },
      tag: { type: 'string' },
      url: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const settings = readSettings(['adminHost', 'adminPort', 'adminToken']);
  if (values.url === undefined && settings.adminPort === 0) return fail('ADMIN_PORT=0 lets the gateway choose its port: give --url');
  const base =
    values.url ?? (settings.adminPort === undefined ? undefined : `http://${hostInUrl(settings.adminHost)}:${settings.adminPort}`);
  if (base === undefined) return fail('Set ADMIN_PORT (and ADMIN_HOST) as the gateway has them, or give --url');
  if (settings.adminToken === undefined) return fail('Set ADMIN_TOKEN, or ADMIN_TOKEN_FILE, as the gateway has it');
  // Passed on as given: the admin server checks what the purge names, and says what is wrong.
  const target = { all: values.all, jurisdiction: values.jurisdiction, q: values.q, companyNumber: values.company, tag: values.tag };
  const answer = await request(new URL(PURGE_PATH, base), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${settings.adminToken}`,
      // Who asked, for the gateway's log.
      'user-agent': `company-search-gateway purge (${userInfo().username}@${hostname()})`,
    },
    body: JSON.stringify(target),
    signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
  });
  const text = await answer.body.text();
  if (answer.statusCode === 200) {
    process.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    return 0;
  }
  const message = (JSON.parse(text) as { errors?: { message: string; extensions?: { code?: string } }[] }).errors?.[0];
  return fail(`${answer.statusCode} ${message?.extensions?.code ?? ''}: ${message?.message ?? text}`);
}

/** An IPv6 address in brackets, as a URL writes it (ADMIN_HOST=::1); a name or IPv4 address as it is. */
function hostInUrl(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

function fail(message: string): number {
  process.stderr.write(`${message}\n`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS') === true)
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    else process.stderr.write(`The purge could not be sent: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
