import { request } from 'undici';
import type { LoadRequest } from './load.js';

export interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** One request outside any load run, e.g. for a reference answer. */
export async function send(origin: string, { method, path, headers, body }: LoadRequest): Promise<Answer> {
  const response = await request(new URL(path, origin), { method, headers, body });
  const contentType = response.headers['content-type'];
  return {
    status: response.statusCode,
    contentType: typeof contentType === 'string' ? contentType : '',
    body: Buffer.from(await response.body.arrayBuffer()),
  };
}
