import { UpstreamTimeoutError } from '../../errors/upstream-errors.js';
import { type Alarm, systemAlarm } from './clock.js';
import { MAX_TIMER_MS } from '../../shared/timers.js';

/** How long one caller may wait for the upstream, and how it says it has gone. */
export interface Deadline {
  /** Epoch milliseconds after which the caller no longer waits. */
  expiresAt: number;
  /** Aborts when the caller has gone, e.g. its client disconnected. */
  signal?: AbortSignal | undefined;
  /** What rings when `expiresAt` comes while the caller waits (default: a timer). */
  alarm?: Alarm | undefined;
}

export function deadlineIn(ms: number, signal?: AbortSignal, alarm?: Alarm): Deadline {
  return { expiresAt: Date.now() + ms, signal, alarm };
}

/**
 * Starts `work` and waits for it until the caller's deadline passes or the
 * caller leaves, whichever comes first. A caller that has already gone or run
 * out of time starts nothing. Once started, the work runs on: other callers
 * may share it, and its own deadline bounds it.
 */
export function waitWithin<T>(start: () => Promise<T>, deadline: Deadline, what: string): Promise<T> {
  const { signal } = deadline;
  const remaining = deadline.expiresAt - Date.now();
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (remaining <= 0) return Promise.reject(deadlineExceeded(what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => settle(() => reject(signal?.reason));
    const silence = (deadline.alarm ?? systemAlarm)(Math.min(remaining, MAX_TIMER_MS), () => settle(() => reject(deadlineExceeded(what))));
    const settle = (finish: () => void) => {
      silence();
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    start().then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

export function deadlineExceeded(what: string): UpstreamTimeoutError {
  return new UpstreamTimeoutError(`Company lookup service gave no answer for ${what} within the request deadline`);
}
