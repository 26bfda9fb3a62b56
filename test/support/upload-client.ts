/**
 * Uploads a body far over MAX_BODY_BYTES to the URL given, as undici's
 * `request` (whole and streamed) and `fetch` do, and prints each outcome as
 * one JSON line. Run in a process of its own: with client and server on one
 * event loop, the client always read the refusal before the reset arrived,
 * and the failure this guards against never showed.
 *
 * Usage: node --import tsx test/support/upload-client.ts <url> <bytes> <rounds>
 */
import { Readable } from 'node:stream';
import { fetch, request } from 'undici';

export interface UploadOutcome {
  client: 'request' | 'request-stream' | 'fetch';
  status?: number;
  code?: string;
  error?: string;
}

const [url = '', bytes = '0', rounds = '1'] = process.argv.slice(2);
const body = Buffer.alloc(Number(bytes), 'x');
const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };

function codeOf(text: string): string | undefined {
  return (JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;
}

function streamed(): Readable {
  const chunk = 64 * 1024;
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < body.length; offset += chunk) yield body.subarray(offset, offset + chunk);
    })(),
  );
}

async function attempt(client: UploadOutcome['client']): Promise<UploadOutcome> {
  try {
    if (client === 'fetch') {
      const response = await fetch(url, { method: 'POST', headers, body });
      return { client, status: response.status, code: codeOf(await response.text()) };
    }
    const response = await request(url, { method: 'POST', headers, body: client === 'request' ? body : streamed() });
    return { client, status: response.statusCode, code: codeOf(await response.body.text()) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { client, error: cause?.code ?? (error as { code?: string }).code ?? String(error) };
  }
}

for (let round = 0; round < Number(rounds); round += 1) {
  for (const client of ['request', 'request-stream', 'fetch'] as const) {
    process.stdout.write(`${JSON.stringify(await attempt(client))}\n`);
  }
}
