export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

interface Problem {
  ok: false;
  message: string;
}

type TokenRequestCheck = { ok: true; credentials: ClientCredentials } | Problem;

function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return { ...parsed };
}

function stringField(fields: Record<string, unknown>, name: string): string | Problem {
  const value = fields[name];
  if (value === undefined || value === null || value === '') return { ok: false, message: `${name} is required` };
  if (typeof value !== 'string') return { ok: false, message: `${name} must be a string` };
  return value;
}

/** Validates a token request body; the first problem found is reported, naming its field. */
export function parseTokenRequest(body: Buffer): TokenRequestCheck {
  const fields = parseJsonObject(body);
  if (fields === undefined) return { ok: false, message: 'Request body must be a JSON object' };
  const clientId = stringField(fields, 'client_id');
  if (typeof clientId !== 'string') return clientId;
  const clientSecret = stringField(fields, 'client_secret');
  if (typeof clientSecret !== 'string') return clientSecret;
  const grantType = stringField(fields, 'grant_type');
  if (typeof grantType !== 'string') return grantType;
  if (grantType !== 'client_credentials') return { ok: false, message: 'grant_type must be client_credentials' };
  return { ok: true, credentials: { clientId, clientSecret } };
}
