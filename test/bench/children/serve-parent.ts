import type { CallMessage, ChildMessage, ProcessStats } from '../protocol.js';

export type Handlers = Record<string, (params: unknown) => unknown>;

/**
 * Answers the parent's calls over IPC. The child lives exactly as long as the
 * channel: when the parent goes, however it goes, the child exits too.
 */
export function serveParent(handlers: Handlers): void {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('A benchmark child must be started with an IPC channel');
  const reply = (message: ChildMessage) => send(message);

  process.on('message', (message: CallMessage) => {
    const handler = handlers[message.method];
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`Unknown call ${message.method}`);
        return handler(message.params);
      })
      .then(
        (result: unknown) => reply({ id: message.id, result }),
        (error: unknown) => reply({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  reply({ alive: true });
}

export function processStats(): ProcessStats {
  const { user, system } = process.cpuUsage();
  const { rss, heapUsed } = process.memoryUsage();
  return { cpuUs: user + system, rssBytes: rss, heapUsedBytes: heapUsed };
}

/** Full collections until the heap stops shrinking, so RSS reflects live data; needs --expose-gc. */
export function collectGarbage(): void {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('gc is not exposed; start the child with --expose-gc');
  for (let i = 0; i < 3; i++) gc();
}
