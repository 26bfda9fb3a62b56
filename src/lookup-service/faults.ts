import { describe } from './validation.js';

/** How a request is answered instead of normally, for testing a client against a failing upstream. */
export type Fault =
  /** A raw answer; the body defaults to {"message": "<reason phrase>"}. */
  | { status: number; body?: string; headers?: Record<string, string> }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed-json' }
  /** 200 with JSON that lacks the expected fields (`results`, or `access_token`). */
  | { kind: 'wrong-shape' }
  /** The socket is destroyed without an answer. */
  | { kind: 'drop-connection' }
  /** No answer until the service closes. */
  | { kind: 'hang' };

const FAULT_KINDS = ['malformed-json', 'wrong-shape', 'drop-connection', 'hang'] as const;

type FaultKind = (typeof FAULT_KINDS)[number];

function isFaultKind(value: unknown): value is FaultKind {
  return FAULT_KINDS.some((kind) => kind === value);
}

function validateHeaders(headers: unknown): Record<string, string> {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new TypeError(`fault.headers must be an object, got ${describe(headers)}`);
  }
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw new TypeError(`fault.headers.${name} must be a string, got ${describe(value)}`);
    copy[name] = value;
  }
  return copy;
}

function validateFault(fault: unknown): Fault {
  if (typeof fault !== 'object' || fault === null) throw new TypeError(`fault must be an object, got ${describe(fault)}`);
  if ('kind' in fault) {
    const { kind } = fault;
    if (!isFaultKind(kind)) throw new TypeError(`fault.kind must be one of ${FAULT_KINDS.join(', ')}, got ${describe(kind)}`);
    return { kind };
  }
  if (!('status' in fault)) throw new TypeError('fault must have either a status or a kind');
  const { status } = fault;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(`fault.status must be an integer from 200 to 599, got ${describe(status)}`);
  }
  const validated: Fault = { status };
  if ('body' in fault && fault.body !== undefined) {
    if (typeof fault.body !== 'string') throw new TypeError(`fault.body must be a string, got ${describe(fault.body)}`);
    validated.body = fault.body;
  }
  if ('headers' in fault && fault.headers !== undefined) validated.headers = validateHeaders(fault.headers);
  return validated;
}

function validateTimes(times: unknown): number {
  if (times === Infinity || (typeof times === 'number' && Number.isInteger(times) && times >= 1)) return times;
  throw new RangeError(`times must be a positive integer or Infinity, got ${describe(times)}`);
}

/** Faults waiting to be used, in the order they were added; each answers the next `times` requests. */
export class FaultQueue {
  private readonly pending: { fault: Fault; remaining: number }[] = [];

  add(fault: Fault, times: number): void {
    this.pending.push({ fault: validateFault(fault), remaining: validateTimes(times) });
  }

  /** The fault for the request that just arrived, if any. */
  take(): Fault | undefined {
    const next = this.pending[0];
    if (next === undefined) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) this.pending.shift();
    return next.fault;
  }

  clear(): void {
    this.pending.length = 0;
  }
}
