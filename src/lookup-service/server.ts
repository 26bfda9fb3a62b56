import { setMaxListeners } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { Counters } from './counters.js';
import { credentialsCheck } from './credentials.js';
import type { LookupServiceCounters } from './counters.js';
import { Knobs } from './knobs.js';
import type { LookupServiceKnobs } from './knobs.js';
import { resolveOptions } from './options.js';
import { QuotaMeter } from './quota-meter.js';
import type { LookupServiceOptions } from './options.js';
import { createRequestListener } from './request-handler.js';
import { defaultDataSet } from './default-data-set.js';
import { type SearchIndex, searchIndexFor } from './search-index.js';
import type { ServiceContext } from './service-context.js';
import { TokenStore } from './token-store.js';

export interface LookupService {
  /** e.g. 'http://127.0.0.1:40123', no trailing slash. */
  readonly url: string;
  readonly credentials: { readonly clientId: string; readonly clientSecret: string };
  /** Mutable at run time by tests, in-process. */
  readonly knobs: LookupServiceKnobs;
  readonly counters: LookupServiceCounters;
  /**
   * With `deferDataSet`, generates the data set and builds its search index now rather than at the first search: a
   * second or so of CPU, during which nothing else runs. Does nothing once that is done.
   */
  prepareSearch(): void;
  /** Closes the server and every connection, including hanging ones; safe to call more than once. */
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function serverUrl(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The lookup service is not listening on a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Starts the Company Lookup Service on its own HTTP server. */
export async function startLookupService(options: LookupServiceOptions = {}): Promise<LookupService> {
  const resolved = resolveOptions(options);
  const tokens = new TokenStore(resolved.clock);
  const closing = new AbortController();
  // Every delayed request listens for closing; hundreds at once are normal under load.
  setMaxListeners(0, closing.signal);
  // Indexed now unless asked to wait (the generated data set costs more CPU than all else a gateway does to start),
  // so that invalid companies fail the start and a first search is as quick as the next.
  const { companies, deferDataSet } = resolved;
  let index: SearchIndex | undefined;
  const searchIndex = () => {
    index ??= searchIndexFor(companies ?? defaultDataSet());
    return index;
  };
  if (companies !== undefined || !deferDataSet) searchIndex();
  const context: ServiceContext = {
    searchIndex,
    tokens,
    knobs: new Knobs(resolved.knobs, tokens, new QuotaMeter(resolved.clock)),
    counters: new Counters(),
    credentialsMatch: credentialsCheck(resolved.credentials),
    closing: closing.signal,
  };
  const server = createServer(createRequestListener(context));
  await listen(server, resolved.host, resolved.port);

  let closed: Promise<void> | undefined;
  return {
    url: serverUrl(server),
    credentials: Object.freeze({ ...resolved.credentials }),
    knobs: context.knobs,
    counters: context.counters,
    prepareSearch: () => void searchIndex(),
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
