import type { IncomingMessage } from 'node:http';

/** The client closed the connection before its whole request body arrived: nobody is left to answer, so no client ever sees this. */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

/**
 * The whole request body, or undefined when it is larger than `maxBytes`:
 * when Content-Length says so (nothing is read), or as soon as the bytes read
 * pass it (reading then stops). What is left of a body too large is the
 * caller's to drain or refuse. Rejects with ClientGoneError if the client
 * hangs up first.
 *
 * Written here rather than taken from raw-body (the library for the job): it
 * is not a dependency and would bring four (bytes, http-errors, iconv-lite,
 * unpipe), and both callers would map its HttpErrors back to these two
 * outcomes; the gateway and the embedded lookup service share this one reader.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(request.headers['content-length']) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    // Hung up while the checks before reading were still running: no event will come.
    if (request.destroyed) {
      reject(new ClientGoneError('The connection closed before the request body was read'));
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > maxBytes) {
        cleanup();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // The parser gives each chunk a buffer of its own, so a body that came in one needs no copy.
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new ClientGoneError(`The connection closed mid-body (${error.message})`, { cause: error }));
    };
    const onClose = () => onError(new Error('closed'));
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
    // 'close' without 'end' or 'error' is a hang-up too; after 'end' the listener is already gone.
    request.once('close', onClose);
  });
}
