import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleOf, type BundleSources, filesOf } from '../../../src/gateway/graphiql/bundle.js';
import { COPY_EXTENSIONS, CompressedCopies, type Copy } from '../../../src/gateway/graphiql/compressed-copies.js';
import { createGraphiqlResponder, type GraphiqlResponder } from '../../../src/gateway/graphiql/graphiql-responder.js';
import { createLogger } from '../../../src/gateway/logger.js';
import { send } from '../../support/http.js';

/** A bundle of GraphiQL's shape, small enough to compress in milliseconds. */
const SOURCES: BundleSources = {
  js: 'window.YogaGraphiQL = { renderYogaGraphiQL() {} };\n'.repeat(200),
  css: 'body { margin: 0; }\n'.repeat(200),
  favicon: `data:image/x-icon;base64,${Buffer.alloc(64, 7).toString('base64')}`,
  editorWorkerService: 'self.onmessage = () => {};\n'.repeat(100),
  jsonWorker: 'self.onmessage = () => {}; // json\n'.repeat(100),
  graphqlWorker: 'self.onmessage = () => {}; // graphql\n'.repeat(100),
};
const bundle = bundleOf(SOURCES);

/** Copies made only once the test lets them: what a client gets meanwhile can be asked. */
class HeldCopies extends CompressedCopies {
  release!: () => void;
  readonly #held = new Promise<void>((resolve) => (this.release = resolve));

  override async make(copies: readonly Copy[], concurrency?: number): Promise<void> {
    await this.#held;
    await super.make(copies, concurrency);
  }
}

interface Served {
  url: string;
  responder: GraphiqlResponder;
  logs: string[];
  server: Server;
}

async function serve(copies: CompressedCopies): Promise<Served> {
  const logs: string[] = [];
  const responder = createGraphiqlResponder({
    page: { title: 'Test' },
    logger: createLogger('info', { write: (line: string) => logs.push(line) }),
    bundle: async () => bundle,
    copies,
  });
  const server = createServer((request, response) => {
    const answered = request.url === '/graphql' ? responder.page(request, response).then(() => true) : responder.file(request, response);
    void answered.then((found) => found || response.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, responder, logs, server };
}

let dir: string;
const running: Server[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'graphiql-copies-'));
});
afterEach(async () => {
  for (const server of running.splice(0)) server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("GraphiQL's compressed copies", () => {
  it('are made in the background on a start without them: files go out uncompressed until then, compressed after, and the copies are kept', async () => {
    const copies = new HeldCopies(dir);
    const first = await serve(copies);
    running.push(first.server);
    const script = bundle.script.path;

    const meanwhile = await send(first.url, { path: script, headers: { 'accept-encoding': 'br, gzip' } });
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.headers['content-encoding']).toBeUndefined();
    expect(meanwhile.body.equals(bundle.script.body)).toBe(true);
    expect(first.logs.join('')).toContain('Compressing GraphiQL in the background');

    copies.release();
    await first.responder.compressed;
    expect((await send(first.url, { path: script, headers: { 'accept-encoding': 'br, gzip' } })).headers['content-encoding']).toBe('br');
    expect((await readdir(dir)).sort()).toEqual(
      filesOf(bundle)
        .flatMap((file) => [`${file.hash}.${COPY_EXTENSIONS.br}`, `${file.hash}.${COPY_EXTENSIONS.gzip}`])
        .sort(),
    );

    // The next start reads them: nothing to make, compressed from its first answer.
    const next = await serve(new CompressedCopies(dir));
    running.push(next.server);
    expect((await send(next.url, { path: script, headers: { 'accept-encoding': 'gzip' } })).headers['content-encoding']).toBe('gzip');
    await next.responder.compressed;
    expect(next.logs.join('')).not.toContain('Compressing GraphiQL');
  });

  it('of other versions are deleted, and those of this one kept', async () => {
    const copies = new CompressedCopies(dir);
    await copies.make(await copies.load(filesOf(bundle)));
    await writeFile(join(dir, `${'0'.repeat(64)}.br`), 'an earlier version');
    await copies.prune(filesOf(bundle));
    expect(await readdir(dir)).toHaveLength(filesOf(bundle).length * 2);
    expect(await readdir(dir)).not.toContain(`${'0'.repeat(64)}.br`);
  });

  it('made at other levels are made again, not served', async () => {
    const [file] = filesOf(bundle);
    // What an install at other levels left: named by the file's hash, without these levels in its name.
    await writeFile(join(dir, `${file!.hash}.br`), 'made at another level');
    const copies = new CompressedCopies(dir);
    const toMake = await copies.load(filesOf(bundle));
    expect(toMake).toContainEqual({ file, encoding: 'br' });
    await copies.make(toMake);
    expect(copies.get(file!, 'br')?.toString()).not.toBe('made at another level');
    await copies.prune(filesOf(bundle));
    expect(await readdir(dir)).not.toContain(`${file!.hash}.br`);
  });
});
