// Brotli settings for GraphiQL's compressed copies (src/gateway/graphiql/compressed-copies.ts): for each quality and
// window, the total bytes of the copies of every GraphiQL file and the CPU seconds it took to make them, in the
// coding the gateway uses (text mode for text/*, a size hint). Run after `npm run build`:
//   node scripts/measure-compression.mjs
// docs/performance.md records a run of it.
import { brotliCompressSync, constants } from 'node:zlib';
import { filesOf, installedBundle } from '../dist/gateway/graphiql/bundle.js';

/** [quality, window bits]: the chosen setting first, then the best quality at the largest and at the default window. */
const SETTINGS = [
  [10, 24],
  [11, 24],
  [11, 22],
];

const files = filesOf(await installedBundle());
const plain = files.reduce((sum, file) => sum + file.body.length, 0);
process.stdout.write(`${files.length} files, ${plain} bytes uncompressed\n`);
process.stdout.write('quality window bytes CPU\n');
for (const [quality, window] of SETTINGS) {
  let bytes = 0;
  const start = process.cpuUsage();
  for (const file of files) {
    bytes += brotliCompressSync(file.body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_LGWIN]: window,
        [constants.BROTLI_PARAM_SIZE_HINT]: file.body.length,
        [constants.BROTLI_PARAM_MODE]: file.contentType.startsWith('text/') ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
      },
    }).length;
  }
  const used = process.cpuUsage(start);
  process.stdout.write(`${quality} ${window} ${bytes} ${((used.user + used.system) / 1e6).toFixed(2)} s\n`);
}
