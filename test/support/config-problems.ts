import { ConfigError, readConfig } from '../../src/gateway/config/gateway-config.js';

/** The problems readConfig finds in `env`; fails the test when it finds none. */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('readConfig accepted the environment');
}
