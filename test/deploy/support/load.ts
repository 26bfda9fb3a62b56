import { EventEmitter, once } from 'node:events';
import { setTimeout as pause } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { searchBody } from './containers.js';

/** Searches the load repeats: after their first answers, served from the fleet's caches. */
const QUERIES = ['acme', 'holdings', 'trading', 'services', 'bakery', 'engineering'];

export interface Load {
  /** Requests answered so far, whatever the answer. */
  readonly answered: number;
  /** Resolves once `count` more requests have been answered. */
  more(count: number): Promise<void>;
  /** Stops sending, waits for the requests in flight, and tells every request that did not get a whole search answer. */
  stop(): Promise<{ answered: number; failures: string[] }>;
}

/**
 * A bounded load on `url`'s /graphql: `concurrency` clients in a loop, each pausing `pauseMs` between requests, at
 * most `maxRequests` in all, until stopped. Every answer must be 200 with the search's data and no error. `headers`
 * is asked for each request's headers (a client's credentials, which a test may change under load).
 */
export function startLoad(
  url: string,
  { concurrency = 4, pauseMs = 5, maxRequests = 60_000, headers = (): Record<string, string> => ({}) } = {},
): Load {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 4_000 });
  const answers = new EventEmitter();
  const failures: string[] = [];
  let answered = 0;
  let sent = 0;
  let running = true;
  const client = async (index: number) => {
    while (running && sent < maxRequests) {
      sent += 1;
      const q = QUERIES[(sent + index) % QUERIES.length]!;
      try {
        const response = await request(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers() },
          body: searchBody(q),
          dispatcher: agent,
        });
        const text = await response.body.text();
        let body: { data?: { searchCompanies?: { totalCount?: number } }; errors?: unknown } = {};
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          // Not JSON (a balancer's own error page): the status and the text tell what answered.
        }
        if (response.statusCode !== 200 || body.errors !== undefined || typeof body.data?.searchCompanies?.totalCount !== 'number') {
          failures.push(`${response.statusCode} ${text.slice(0, 300)}`);
        }
      } catch (error) {
        failures.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
      }
      answered += 1;
      answers.emit('answer');
      await pause(pauseMs);
    }
  };
  const clients = Array.from({ length: concurrency }, (_, index) => client(index));
  return {
    get answered() {
      return answered;
    },
    async more(count) {
      const target = answered + count;
      while (answered < target) {
        if (!running || sent >= maxRequests) throw new Error(`The load stopped after ${answered} requests, before ${target}`);
        await once(answers, 'answer');
      }
    },
    async stop() {
      running = false;
      await Promise.all(clients);
      await agent.close();
      return { answered, failures };
    },
  };
}
