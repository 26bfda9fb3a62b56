/** A request's fate, read without awaiting it. */
export interface WatchedRequest {
  /** Whether it has been answered or failed yet. */
  readonly settled: boolean;
  readonly outcome: Promise<'answered' | 'failed'>;
}

export function watch(request: Promise<unknown>): WatchedRequest {
  const watched = {
    settled: false,
    outcome: request.then(
      () => 'answered' as const,
      () => 'failed' as const,
    ),
  };
  void watched.outcome.then(() => (watched.settled = true));
  return watched;
}
