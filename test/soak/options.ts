import { parseArgs } from 'node:util';

export interface SoakOptions {
  /** How long faults are switched on and off, before the closing healthy phase. */
  durationSeconds: number;
  /** Requests kept in flight against the gateway at all times. */
  concurrency: number;
  /** How long each phase of the fault schedule lasts. */
  phaseSeconds: number;
}

export const DEFAULT_DURATION_SECONDS = 180;
export const DEFAULT_CONCURRENCY = 32;
export const DEFAULT_PHASE_SECONDS = 5;

export const USAGE = `Usage: npx tsx test/soak/main.ts [--duration SECONDS] [--concurrency N] [--phase SECONDS]

  --duration     how long faults are switched on and off (env SOAK_DURATION_SECONDS, default ${DEFAULT_DURATION_SECONDS})
  --concurrency  requests kept in flight (env SOAK_CONCURRENCY, default ${DEFAULT_CONCURRENCY})
  --phase        length of each phase of the fault schedule (env SOAK_PHASE_SECONDS, default ${DEFAULT_PHASE_SECONDS})
`;

/** Flags win over environment variables, which win over the defaults; every bad value is named. */
export function readOptions(argv: string[], env: NodeJS.ProcessEnv): SoakOptions | { help: true } {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      phase: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return { help: true };
  const problems: string[] = [];
  const read = (flag: string, value: string | undefined, envName: string, fallback: number, min: number, max: number) => {
    const raw = value ?? env[envName];
    if (raw === undefined || raw.trim() === '') return fallback;
    const number = /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
    if (!(number >= min && number <= max)) {
      problems.push(
        `${value === undefined ? envName : `--${flag}`} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`,
      );
    }
    return number;
  };
  const options = {
    durationSeconds: read('duration', values.duration, 'SOAK_DURATION_SECONDS', DEFAULT_DURATION_SECONDS, 1, 86_400),
    concurrency: read('concurrency', values.concurrency, 'SOAK_CONCURRENCY', DEFAULT_CONCURRENCY, 1, 1_024),
    phaseSeconds: read('phase', values.phase, 'SOAK_PHASE_SECONDS', DEFAULT_PHASE_SECONDS, 1, 600),
  };
  if (problems.length > 0) throw new Error(`Invalid soak options:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  return options;
}
