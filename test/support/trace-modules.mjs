// `node --import ./trace-modules.mjs …`: writes `module <url>` to stderr for every module the process loads.
import { register } from 'node:module';

register('./trace-modules-hooks.mjs', import.meta.url);
