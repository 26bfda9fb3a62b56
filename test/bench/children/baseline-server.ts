import { createServer } from 'node:http';
import type { BaselineAnswer, ServerStarted } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';
import { listenOnLoopback } from './listen.js';

/**
 * The physical limit: a bare node:http server that reads each request and
 * writes back bytes serialized once, the very bytes the gateway answered.
 */
let answer: { body: Buffer; headers: Record<string, string | number> } | undefined;

const server = createServer((request, response) => {
  request.resume();
  request.once('end', () => {
    if (answer === undefined) {
      response.writeHead(503).end();
      return;
    }
    response.writeHead(200, answer.headers).end(answer.body);
  });
});

serveParent({
  start(): Promise<ServerStarted> {
    return listenOnLoopback(server);
  },
  answer(params) {
    const { body, contentType } = params as BaselineAnswer;
    const bytes = Buffer.from(body);
    answer = { body: bytes, headers: { 'content-type': contentType, 'content-length': bytes.length } };
  },
  stats: processStats,
});
