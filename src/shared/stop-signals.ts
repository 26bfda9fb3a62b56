/** What stops a server: SIGTERM from a supervisor or `kill`, SIGINT from Ctrl-C. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Calls `stop` on the first SIGTERM or SIGINT, and ignores the ones after it.
 * Ctrl-C under `npm start` delivers SIGINT twice, from the terminal to the
 * whole process group and again forwarded by npm; with a one-time listener the
 * second one would find Node's default action and kill the process in the
 * middle of its clean shutdown.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stop(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handle);
}
