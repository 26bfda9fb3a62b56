import { isOrigin } from '../http/cors.js';
import type { EnvReader } from './env-reader.js';

export interface CorsSettings {
  /** Origins browsers may read answers from; `*` for any. */
  corsAllowedOrigins: string[];
}

export function readCorsSettings(reader: EnvReader): CorsSettings {
  const raw = reader.string('CORS_ALLOWED_ORIGINS');
  if (raw === undefined) return { corsAllowedOrigins: [] };
  const origins = raw.split(',').map((origin) => origin.trim());
  const bad = origins.filter((origin) => origin !== '*' && !isOrigin(origin));
  if (bad.length === 0) return { corsAllowedOrigins: origins };
  reader.refuse(
    'CORS_ALLOWED_ORIGINS',
    `CORS_ALLOWED_ORIGINS must be * or origins such as https://app.example.com (scheme, host and port, no path), separated by commas; not ${bad.map((origin) => JSON.stringify(origin)).join(', ')}`,
  );
  return { corsAllowedOrigins: [] };
}
