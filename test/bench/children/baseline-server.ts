import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { applySocketTimeouts } from '../../../src/gateway/http/socket-timeouts.js';
import { accessLoggerOf, createLogger } from '../../../src/gateway/logger.js';
import { type ObservedResponse, startObserving } from '../../../src/gateway/observability/observed-response.js';
import { httpServerOptions, logAccess } from '../../../src/gateway/http/http-server.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';
import type { BaselineAnswer, BaselineStartParams, ServerStarted } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';
import { listenOnLoopback } from './listen.js';

/**
 * A bare node:http server that reads each request and writes back bytes
 * serialized once, the very bytes the gateway answered: the physical limit.
 * With `production`, it also does what any production gateway here does for
 * every request, with the gateway's own code: the request id (taken or made,
 * and sent back), the pino access line (to stdout, which the benchmark points
 * at /dev/null, as the gateway's), and the gateway's server settings and
 * socket timeouts at their defaults.
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

function productionServer(): Server {
  const { server: settings } = optionsOf(readConfig({})).gateway;
  const logger = createLogger('info');
  const accessLogger = accessLoggerOf(logger);
  function finished(this: ObservedResponse): void {
    logAccess(accessLogger, this);
  }
  const server = createServer(httpServerOptions(settings.requestTimeouts), (request, response) => {
    startObserving(request, response);
    response.on('finish', finished);
    respond(request, response);
  });
  applySocketTimeouts(server, settings.socketTimeouts, logger);
  return server;
}

let server: Server | undefined;

serveParent({
  start(params): Promise<ServerStarted> {
    server = (params as BaselineStartParams | undefined)?.production ? productionServer() : createServer(respond);
    return listenOnLoopback(server);
  },
  answer(params) {
    const { body, contentType } = params as BaselineAnswer;
    const bytes = Buffer.from(body);
    answer = { body: bytes, headers: { 'content-type': contentType, 'content-length': bytes.length } };
  },
  stats: processStats,
});
