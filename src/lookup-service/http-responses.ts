import type { ServerResponse } from 'node:http';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export type Headers = Readonly<Record<string, string>>;

/** Answers with the text as a JSON body; the extra headers win over the defaults, whatever their case. */
export function sendText(res: ServerResponse, status: number, text: string, headers: Headers = {}): void {
  const merged: Record<string, string | number> = { 'content-type': JSON_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) };
  for (const [name, value] of Object.entries(headers)) merged[name.toLowerCase()] = value;
  res.writeHead(status, merged);
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendText(res, status, JSON.stringify(body), headers);
}

/** Every error the service gives is `{"message": "..."}`. */
export function sendError(res: ServerResponse, status: number, message: string, headers: Headers = {}): void {
  sendJson(res, status, { message }, headers);
}
