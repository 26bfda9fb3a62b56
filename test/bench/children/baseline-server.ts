import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BaselineAnswer, ServerStarted } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';

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
server.keepAliveTimeout = 5_000;

serveParent({
  start(): Promise<ServerStarted> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        resolve({ url: `http://127.0.0.1:${port}` });
      });
    });
  },
  answer(params) {
    const { body, contentType } = params as BaselineAnswer;
    const bytes = Buffer.from(body);
    answer = { body: bytes, headers: { 'content-type': contentType, 'content-length': bytes.length } };
  },
  stats: processStats,
});
