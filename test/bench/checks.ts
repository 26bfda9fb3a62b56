export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** The run's correctness checks; any failed one makes the benchmark exit non-zero. */
export class Checks {
  readonly list: Check[] = [];

  record(name: string, ok: boolean, detail = ''): boolean {
    this.list.push({ name, ok, detail });
    return ok;
  }

  /** Records whether `actual` is byte for byte `expected`, naming the first difference if not. */
  identical(name: string, actual: Buffer, expected: Buffer): boolean {
    return this.record(
      name,
      actual.equals(expected),
      actual.equals(expected) ? `${actual.length} bytes` : firstDifference(actual, expected),
    );
  }

  get failed(): Check[] {
    return this.list.filter((check) => !check.ok);
  }
}

function firstDifference(actual: Buffer, expected: Buffer): string {
  let at = 0;
  while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  const around = (bytes: Buffer) => JSON.stringify(bytes.toString('utf8', Math.max(0, at - 40), at + 40));
  return `${actual.length} vs ${expected.length} bytes, first difference at byte ${at}: got ${around(actual)}, expected ${around(expected)}`;
}
