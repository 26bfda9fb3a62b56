import { createHash } from 'node:crypto';
import { GRAPHIQL_FILES_PATH } from '../paths.js';

/** One of GraphiQL's files, served on its own under a URL that names its content, so a browser may keep it for ever. */
export interface GraphiqlFile {
  /** URL path, e.g. `/graphiql/graphiql.0f3c….js`. */
  path: string;
  contentType: string;
  body: Buffer;
  /** SHA-256 of `body`, hex: part of `path`, the ETag, and the name of its compressed copies on disk. */
  hash: string;
}

/** GraphiQL in separate files: the page loads the script and style, Monaco loads a worker by its label when an editor needs it. */
export interface GraphiqlBundle {
  script: GraphiqlFile;
  style: GraphiqlFile;
  icon: GraphiqlFile;
  workers: Readonly<Record<string, GraphiqlFile>>;
}

/** What the bundle is made of: file contents as @graphql-yoga/render-graphiql exports them. */
export interface BundleSources {
  js: string;
  css: string;
  /** A `data:` URI. */
  favicon: string;
  editorWorkerService: string;
  jsonWorker: string;
  graphqlWorker: string;
}

const JAVASCRIPT = 'text/javascript; charset=utf-8';
/** Hex digits of the hash in a file's URL: enough that two versions never share one. */
const URL_HASH_DIGITS = 16;

/**
 * @graphql-yoga/render-graphiql writes all of GraphiQL into one page of megabytes:
 * script, style, icon and Monaco's workers (as blob URLs). The same contents,
 * as separate files, can be compressed once, cached by the browser and fetched
 * only when used.
 */
export function bundleOf(sources: BundleSources): GraphiqlBundle {
  return {
    script: fileOf('graphiql', 'js', JAVASCRIPT, Buffer.from(sources.js)),
    style: fileOf('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(sources.css)),
    icon: iconOf(sources.favicon),
    // Keyed by the labels Monaco asks for (getWorkerUrl), as render-graphiql keys them.
    workers: {
      editorWorkerService: fileOf('editor.worker', 'js', JAVASCRIPT, Buffer.from(sources.editorWorkerService)),
      json: fileOf('json.worker', 'js', JAVASCRIPT, Buffer.from(sources.jsonWorker)),
      graphql: fileOf('graphql.worker', 'js', JAVASCRIPT, Buffer.from(sources.graphqlWorker)),
    },
  };
}

/** The bundle of the installed @graphql-yoga/render-graphiql, loaded only where GraphiQL is served: it is megabytes of JavaScript strings. */
export async function installedBundle(): Promise<GraphiqlBundle> {
  return bundleOf(await import('@graphql-yoga/render-graphiql/graphiql'));
}

/** Every file of the bundle. */
export function filesOf(bundle: GraphiqlBundle): GraphiqlFile[] {
  return [bundle.script, bundle.style, bundle.icon, ...Object.values(bundle.workers)];
}

function fileOf(name: string, extension: string, contentType: string, body: Buffer): GraphiqlFile {
  const hash = createHash('sha256').update(body).digest('hex');
  return { path: `${GRAPHIQL_FILES_PATH}${name}.${hash.slice(0, URL_HASH_DIGITS)}.${extension}`, contentType, body, hash };
}

function iconOf(dataUri: string): GraphiqlFile {
  const parsed = /^data:([\w.+-]+\/[\w.+-]+);base64,([\w+/=]+)$/.exec(dataUri);
  if (parsed === null) throw new Error(`GraphiQL's favicon is not a base64 data: URI (${dataUri.slice(0, 40)}…)`);
  const [, contentType, base64] = parsed as unknown as [string, string, string];
  return fileOf('favicon', contentType === 'image/x-icon' ? 'ico' : 'img', contentType, Buffer.from(base64, 'base64'));
}
