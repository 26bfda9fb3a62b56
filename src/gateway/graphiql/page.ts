import type { GraphiQLOptions } from 'graphql-yoga';
import type { GraphiqlBundle } from './bundle.js';

/**
 * GraphiQL's page: render-graphiql's page, with its inline script, style,
 * icon and workers replaced by links to the bundle's files. A few hundred
 * bytes of its own; everything else the browser may keep.
 */
export function renderPage(bundle: GraphiqlBundle, options: GraphiQLOptions): string {
  const workerUrls = Object.fromEntries(Object.entries(bundle.workers).map(([label, file]) => [label, file.path]));
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${bundle.icon.path}" />
    <link rel="stylesheet" href="${bundle.style.path}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script>
      const workerUrls = ${scriptJson(workerUrls)};
      self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workerUrls[label] };
    </script>
    <script src="${bundle.script.path}"></script>
    <script>
      YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${scriptJson(options)});
    </script>
  </body>
</html>
`;
}

/** JSON that cannot end the script element it is written in. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}
