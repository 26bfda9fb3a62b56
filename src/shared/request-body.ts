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
  // Hung up while the checks before reading were still running: no event will come.
  if (request.destroyed) return Promise.reject(new ClientGoneError('The connection closed before the request body was read'));
  return new Promise((resolve, reject) => new BodyReader(request, maxBytes, resolve, reject));
}

/**
 * One reading of a body: its listeners are its own methods, bound once,
 * rather than five closures made for every request.
 */
class BodyReader {
  readonly #chunks: Buffer[] = [];
  #length = 0;

  constructor(
    private readonly request: IncomingMessage,
    private readonly maxBytes: number,
    private readonly resolve: (body: Buffer | undefined) => void,
    private readonly reject: (error: ClientGoneError) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    this.onClose = this.onClose.bind(this);
    // Not once(): every handler removes all four, and once() would wrap each in yet another closure.
    request.on('data', this.onData);
    request.on('end', this.onEnd);
    request.on('error', this.onError);
    // 'close' without 'end' or 'error' is a hang-up too; after 'end' the listener is already gone.
    request.on('close', this.onClose);
  }

  onData(chunk: Buffer): void {
    this.#length += chunk.length;
    if (this.#length > this.maxBytes) {
      this.cleanup();
      this.resolve(undefined);
      return;
    }
    this.#chunks.push(chunk);
  }

  onEnd(): void {
    this.cleanup();
    // The parser gives each chunk a buffer of its own, so a body that came in one needs no copy.
    this.resolve(this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#length));
  }

  onError(error: Error): void {
    this.cleanup();
    this.reject(new ClientGoneError(`The connection closed mid-body (${error.message})`, { cause: error }));
  }

  onClose(): void {
    this.onError(new Error('closed'));
  }

  private cleanup(): void {
    const { request } = this;
    request.off('data', this.onData);
    request.off('end', this.onEnd);
    request.off('error', this.onError);
    request.off('close', this.onClose);
  }
}
