import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Request body must not exceed ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the whole request body, refusing more than limitBytes. A body that is
 * too large is drained rather than the socket destroyed, so the 413 answer
 * still reaches the client and the connection stays usable.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declaredLength = Number(req.headers['content-length']);
  if (declaredLength > limitBytes) return Promise.reject(new BodyTooLargeError(limitBytes));

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stopListening = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        stopListening();
        req.resume();
        reject(new BodyTooLargeError(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stopListening();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stopListening();
      reject(error);
    };
    const onClose = () => {
      stopListening();
      reject(new Error('The client closed the connection before sending the whole body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
