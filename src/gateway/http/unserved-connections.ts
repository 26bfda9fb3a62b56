import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Keeps track of the connections that have not brought a request to answer
 * (nothing sent yet, or headers still coming), and returns what closes them
 * all. Shutdown closes them at once: Node's server.close() closes idle
 * keep-alive connections, but waits for these, so one silent client held
 * shutdown for its whole grace period.
 */
export function trackUnservedConnections(server: Server): () => void {
  const unserved = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    unserved.add(socket);
    socket.once('close', () => unserved.delete(socket));
  });
  const served = ({ socket }: { socket: Socket }) => unserved.delete(socket);
  server.prependListener('request', served);
  server.prependListener('checkContinue', served);
  server.prependListener('checkExpectation', served);
  return () => {
    for (const socket of unserved) socket.destroy();
  };
}
