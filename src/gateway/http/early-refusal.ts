import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Refusal } from '../../errors/refusal.js';
import { writeRejection } from './rejection.js';

/** How much of an unwanted request body is read after refusing it, and for how long: whichever comes first ends it. */
export interface LingerBounds {
  ms: number;
  bytes: number;
}

/** Sockets whose refusal is written but whose request body is still being read and thrown away. */
const lingering = new WeakSet<Duplex>();

/** Whether `socket` carries a refusal still reading its request: no other answer may be written to it. */
export function isLingering(socket: Duplex): boolean {
  return lingering.has(socket);
}

/**
 * Refuses a request whose body is still on its way, and closes the connection
 * once the client has had the chance to read the refusal. Closing at once is
 * not enough: a socket closed with unread bytes, or receiving more, answers
 * with a reset, and a client still writing its body (undici's `request` and
 * `fetch` do) gets EPIPE or ECONNRESET and loses the answer already sent.
 * So the rest of the body is read and thrown away, within `bounds`; a client
 * that reads while it writes sees the refusal, stops and closes first.
 */
export function refuseBeforeBody(response: ServerResponse, refusal: Refusal, bounds: LingerBounds): void {
  const request = response.req;
  writeRejection(response, refusal, true);
  if (request.readableEnded || request.destroyed) {
    response.end();
    return;
  }
  lingering.add(request.socket);
  let read = 0;
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > bounds.bytes) stop();
  };
  // Ending the response closes the connection (it says `connection: close`); reading stops with it.
  const stop = () => {
    clearTimeout(timer);
    request.off('data', onData);
    request.off('end', stop);
    request.off('close', stop);
    response.end();
  };
  const timer = setTimeout(stop, bounds.ms);
  request.on('data', onData);
  request.once('end', stop);
  request.once('close', stop);
}
