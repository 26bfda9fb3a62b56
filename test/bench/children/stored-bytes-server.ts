import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { BaselineAnswer, ServerStarted } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';
import { listenOnLoopback } from './listen.js';

/**
 * A bare node:http server that reads each request and writes back bytes
 * serialized once, the very bytes the gateway answered: the physical limit
 * of a hot answer.
 */
let answer: { body: Buffer; headers: Record<string, string | number> } | undefined;

function respond(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.once('end', () => {
    if (answer === undefined) {
      response.writeHead(503).end();
      return;
    }
    response.writeHead(200, answer.headers).end(answer.body);
  });
}

const server = createServer(respond);

serveParent({
  start: (): Promise<ServerStarted> => listenOnLoopback(server),
  answer(params) {
    const { body, contentType } = params as BaselineAnswer;
    const bytes = Buffer.from(body);
    answer = { body: bytes, headers: { 'content-type': contentType, 'content-length': bytes.length } };
  },
  stats: processStats,
});
