import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../../src/gateway/logger.js';
import { reloadableOf } from '../../../src/gateway/options-from-settings.js';
import type { ReloadableSettings } from '../../../src/gateway/reload/live-settings.js';
import { Reloader } from '../../../src/gateway/reload/reloader.js';
import { LOG_LEVEL } from '../../support/gateway-process.js';

/** The reloader in this process, on an API-keys file of its own: what it reads, applies and logs, asked directly. */

const root = mkdtempSync(join(tmpdir(), 'reloader-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const reloaders: Reloader[] = [];
afterEach(() => {
  for (const reloader of reloaders.splice(0)) reloader.close();
});

const keyList = (...ids: string[]) => ids.map((id) => `${id}:${id}-key-0123456789abcdef0123456789abcdef`).join(',');

interface Line {
  level: number;
  msg: string;
  trigger?: string;
}

let folders = 0;
/** A reloader on a keys file holding `ids`; `onApply` runs inside each reload that applies keys. */
function reloaderOn(ids: string[], onApply: (settings: ReloadableSettings) => void = () => {}) {
  const folder = join(root, `case-${++folders}`);
  mkdirSync(folder);
  const file = join(folder, 'gateway-api-keys');
  writeFileSync(file, keyList(...ids));
  const env = { GATEWAY_API_KEYS_FILE: file };
  const lines: Line[] = [];
  const applied: string[][] = [];
  const reloader = new Reloader({
    env,
    config: readConfig(env),
    apply: (config) => {
      const settings = reloadableOf(config);
      applied.push(settings.apiKeys.map(({ id }) => id));
      onApply(settings);
    },
    logger: createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
  });
  reloaders.push(reloader);
  return {
    file,
    reloader,
    applied,
    lines,
    /** The reload lines a SIGHUP set off, level and message. */
    answers: () => lines.filter((line) => line.trigger === 'SIGHUP').map(({ level, msg }) => [level, msg]),
    /** Every reload's line, whatever set it off. */
    reloads: () => lines.filter((line) => line.msg.startsWith('Reload')).map(({ msg }) => msg),
  };
}

describe('Reloader: asks coalesced', () => {
  it('answers a thousand SIGHUPs of one turn with one reload, which reads the file as it was at the last', async () => {
    const { file, reloader, applied, reloads } = reloaderOn(['web']);
    const asked: Promise<void>[] = [];
    for (let signal = 0; signal < 500; signal++) asked.push(reloader.reload('SIGHUP'));
    writeFileSync(file, keyList('web', 'mobile'));
    for (let signal = 0; signal < 500; signal++) asked.push(reloader.reload('SIGHUP'));
    await Promise.all(asked);
    expect(applied).toEqual([['web', 'mobile']]);
    expect(reloads()).toEqual(['Reloaded on SIGHUP: GATEWAY_API_KEYS_FILE (added mobile)']);
  });

  it('runs one more reload for an ask that comes while one runs, so that what changed meanwhile is read', async () => {
    let askedMeanwhile: Promise<void> | undefined;
    const { file, reloader, applied, answers } = reloaderOn(['web'], () => {
      if (askedMeanwhile !== undefined) return;
      // A change, and its signal, while the first reload is applying what it read.
      writeFileSync(file, keyList('web', 'mobile', 'app'));
      askedMeanwhile = reloader.reload('SIGHUP');
    });
    writeFileSync(file, keyList('web', 'mobile'));
    await reloader.reload('SIGHUP');
    expect(applied).toEqual([['web', 'mobile']]);
    await askedMeanwhile;
    expect(applied).toEqual([
      ['web', 'mobile'],
      ['web', 'mobile', 'app'],
    ]);
    expect(answers()).toEqual([
      [LOG_LEVEL.info, 'Reloaded on SIGHUP: GATEWAY_API_KEYS_FILE (added mobile)'],
      [LOG_LEVEL.info, 'Reloaded on SIGHUP: GATEWAY_API_KEYS_FILE (added app)'],
    ]);
  });

  it('names a reload asked by file changes and a SIGHUP after the SIGHUP, which gets its answer', async () => {
    const { reloader, reloads, answers } = reloaderOn(['web']);
    await Promise.all([reloader.reload('file change'), reloader.reload('SIGHUP'), reloader.reload('file change')]);
    expect(reloads()).toEqual(['Reload on SIGHUP: nothing changed']);
    // At info, where an operator's log shows it.
    expect(answers()).toEqual([[LOG_LEVEL.info, 'Reload on SIGHUP: nothing changed']]);
  });

  it('logs a file change that finds nothing new at debug only: nobody asked', async () => {
    const { reloader, lines } = reloaderOn(['web']);
    await reloader.reload('file change');
    expect(lines.filter((line) => line.msg.startsWith('Reload')).map(({ level, msg }) => [level, msg])).toEqual([
      [LOG_LEVEL.debug, 'Reload on a file change: nothing changed'],
    ]);
  });
});
