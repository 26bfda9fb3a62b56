import { getSystemErrorMap } from 'node:util';
import { FileRefusedError, readRegularFile } from '../../shared/regular-file.js';
import { CHECKS } from './checks.js';
import { defaultText, docOf, type Read, Refusal, type Setting } from './kinds.js';
import { SETTING_GROUPS, type Settings } from './settings.js';

/**
 * The gateway's configuration, read from environment variables and checked
 * before anything starts: every setting as settings.ts declares it. The parts
 * of the gateway get theirs through ../options-from-settings.ts.
 */
export type GatewayConfig = Settings;

export type Env = Readonly<Record<string, string | undefined>>;

/** The most bytes a secret's file may hold (a kind may allow more: API keys); far above any secret's value. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** Every problem found in the environment, one line each. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  /**
   * `files`: the files (`NAME_FILE=path`) that gave a value the problems are
   * about, so that a reload's line can name them where the problem names only
   * the setting.
   */
  constructor(
    readonly problems: string[],
    readonly files: string[] = [],
  ) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

/** Each declared setting, with the name the configuration gives it, in the order they are read. */
const DECLARED = SETTING_GROUPS.flatMap((group) =>
  Object.entries(group.settings).map(([key, declared]) => ({ key: key as keyof Settings, declared: declared as Setting<unknown> })),
);
const POSITION = new Map(DECLARED.map(({ key }, at) => [key, at]));

/**
 * The configuration `env` describes, or a ConfigError naming every problem,
 * each once, in the order the settings are declared. A function of `env`
 * alone (and the files it names), so that it can be called again to reload.
 */
export function readConfig(env: Env = process.env): GatewayConfig {
  const reading = new Reading(env);
  for (const [at, { declared }] of DECLARED.entries()) reading.take(declared, at);
  const settings = Object.fromEntries(DECLARED.map(({ key, declared }) => [key, reading.read(declared)])) as Settings;
  for (const check of CHECKS) {
    // Right after the problems of the last setting it judges.
    const at = Math.max(...check.about.map((key) => POSITION.get(key)!)) + 0.5;
    const setting = (key: keyof Settings) => DECLARED[POSITION.get(key)!]!.declared;
    check.judge(settings, {
      given: (key) => reading.given.has(setting(key)),
      refused: (...keys) => keys.some((key) => reading.refused.has(setting(key))),
      problem: (message) => reading.problems.push({ at, message, about: check.about.map(setting) }),
    });
  }
  if (reading.problems.length > 0) {
    const problems = reading.problems.sort((a, b) => a.at - b.at);
    const files = new Set(problems.flatMap(({ about }) => about.flatMap((declared) => reading.fileOf(declared) ?? [])));
    throw new ConfigError(
      problems.map(({ message }) => message),
      [...files],
    );
  }
  return settings;
}

/**
 * Only the settings `keys` name, read as readConfig reads them (a secret from
 * its file too), or a ConfigError naming their problems: for a tool that needs
 * a few of the gateway's settings, such as `npm run purge`, run where the
 * gateway's environment is. No check of several settings is made.
 */
export function readSettings<K extends keyof Settings>(keys: readonly K[], env: Env = process.env): Pick<Settings, K> {
  const reading = new Reading(env);
  const wanted = DECLARED.filter(({ key }) => (keys as readonly string[]).includes(key));
  for (const { key, declared } of wanted) reading.take(declared, POSITION.get(key)!);
  if (reading.problems.length > 0) throw new ConfigError(reading.problems.map(({ message }) => message));
  return Object.fromEntries(wanted.map(({ key, declared }) => [key, reading.read(declared)])) as Pick<Settings, K>;
}

/**
 * Reads one setting after another: a blank value counts as unset; a refused
 * value leaves its default in place, and every problem is kept, so that one
 * start names them all.
 */
class Reading {
  readonly #values = new Map<Setting<unknown>, unknown>();
  readonly given = new Set<Setting<unknown>>();
  readonly refused = new Set<Setting<unknown>>();
  readonly problems: { at: number; message: string; about: Setting<unknown>[] }[] = [];
  readonly #files = new Map<Setting<unknown>, string>();

  constructor(private readonly env: Env) {}

  readonly read: Read = <T>(declared: Setting<T>): T => {
    if (!this.#values.has(declared)) throw new Error(`${declared.env} is needed before it is read: declare it earlier`);
    return this.#values.get(declared) as T;
  };

  take(declared: Setting<unknown>, at: number): void {
    const raw = this.#raw(declared, at);
    let parsed: unknown;
    if (raw !== undefined) {
      this.given.add(declared);
      parsed = declared.onlyIf && !declared.onlyIf(this.read) ? undefined : declared.kind.parse(raw, declared.env);
      if (parsed instanceof Refusal) this.#refuse(declared, at, ...parsed.problems);
    }
    const usable = parsed !== undefined && !(parsed instanceof Refusal);
    const fallback = declared.default;
    this.#values.set(declared, usable ? parsed : typeof fallback === 'function' ? fallback(this.read) : fallback);
  }

  /** The variable's value, trimmed; or, for a secret, the content of the file `<NAME>_FILE` names, less its final newline. */
  #raw(declared: Setting<unknown>, at: number): string | undefined {
    const value = nonBlank(this.env[declared.env]);
    const fileVariable = `${declared.env}_FILE`;
    const path = declared.secret ? nonBlank(this.env[fileVariable]) : undefined;
    if (path === undefined) return value;
    this.given.add(declared);
    if (value !== undefined) return this.#refuse(declared, at, `Set ${declared.env} or ${fileVariable}, not both`);
    this.#files.set(declared, `${fileVariable}=${path}`);
    let content: string;
    try {
      content = readRegularFile(path, declared.kind.maxFileBytes ?? MAX_SECRET_FILE_BYTES).replace(/\r?\n$/, '');
    } catch (error) {
      if (error instanceof FileRefusedError) return this.#refuse(declared, at, `${fileVariable}: ${path} ${error.message}`);
      return this.#refuse(declared, at, `${fileVariable}: cannot read ${path}: ${reasonOf(error)}`);
    }
    return content.trim() === '' ? this.#refuse(declared, at, `${fileVariable}: ${path} is empty`) : content;
  }

  /** `NAME_FILE=path` where the setting's value came from a file. */
  fileOf(declared: Setting<unknown>): string | undefined {
    return this.#files.get(declared);
  }

  #refuse(declared: Setting<unknown>, at: number, ...problems: readonly string[]): undefined {
    this.refused.add(declared);
    for (const message of problems) this.problems.push({ at, message, about: [declared] });
    return undefined;
  }
}

function isSet(declared: Setting<unknown>, env: Env): boolean {
  return nonBlank(env[declared.env]) !== undefined || (declared.secret === true && nonBlank(env[`${declared.env}_FILE`]) !== undefined);
}

function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Why a file could not be read, as the system says it: `no such file or directory (ENOENT)`. */
function reasonOf(error: unknown): string {
  const { code, errno } = error as NodeJS.ErrnoException;
  const text = errno === undefined ? undefined : getSystemErrorMap().get(errno)?.[1];
  return text && code ? `${text} (${code})` : (code ?? String(error));
}

/** What a reload found changed: a setting, and the variable that gave it (`NAME_FILE` where a file did). */
export interface ChangedSetting {
  key: keyof Settings;
  variable: string;
  /** Applied without a restart (the setting `reloads`), or only at the next start. */
  reloads: boolean;
  /** What changed, never quoting a secret: `added web-2; removed web`. */
  change: string;
}

/** The settings whose values differ between two configurations read from `env` (only those read from files can). */
export function changedSettings(before: GatewayConfig, after: GatewayConfig, env: Env): ChangedSetting[] {
  return DECLARED.flatMap(({ key, declared }) => {
    const [a, b] = [before[key], after[key]];
    const same =
      a === undefined || b === undefined
        ? a === b
        : declared.kind.same
          ? declared.kind.same(a, b)
          : JSON.stringify(a) === JSON.stringify(b);
    if (same) return [];
    const variable = fileVariableOf(declared, env) ?? declared.env;
    const change = a !== undefined && b !== undefined && declared.kind.change ? declared.kind.change(a as never, b as never) : 'changed';
    return [{ key, variable, reloads: declared.reloads === true, change }];
  });
}

/** The files a reload watches: those of the settings that reload, as `env` names them (a secret's file, the manifests). */
export function reloadedFiles(env: Env): string[] {
  return DECLARED.flatMap(({ declared }) => {
    if (!declared.reloads) return [];
    const file = fileVariableOf(declared, env);
    const raw = nonBlank(env[declared.env]);
    return [...(file ? [nonBlank(env[file])!] : []), ...(raw && declared.kind.files ? declared.kind.files(raw) : [])];
  });
}

/** `NAME_FILE`, where it is set for this secret. */
function fileVariableOf(declared: Setting<unknown>, env: Env): string | undefined {
  const variable = `${declared.env}_FILE`;
  return declared.secret && nonBlank(env[variable]) !== undefined ? variable : undefined;
}

/**
 * The configuration as it may be printed or logged, setting by setting: a
 * secret as `[redacted]`, or as much of it as its kind shows (API keys by id,
 * Redis's URL without its password). With `setIn`, only the settings that
 * environment sets (itself or through its file), the rest being defaults.
 */
export function describeConfig(config: GatewayConfig, setIn?: Env): Record<string, unknown> {
  const described = setIn === undefined ? DECLARED : DECLARED.filter(({ declared }) => isSet(declared, setIn));
  return Object.fromEntries(
    described.map(({ key, declared }) => {
      const value = config[key];
      if (value === undefined) return [key, value];
      if (declared.secret) return [key, declared.kind.redacted ? declared.kind.redacted(value as never) : '[redacted]'];
      return [key, declared.kind.show ? declared.kind.show(value as never) : value];
    }),
  );
}

/** `--help`: every setting, its default and what it accepts, from the declarations; plain text, without Markdown's backticks. */
export function settingsHelp(): string {
  const lines = [
    'Usage: node dist/main.js (or npm start): the gateway, configured by environment variables, all checked at start.',
    'A secret (*) may instead come from a file: NAME_FILE=/path. The full reference: docs/configuration.md.',
  ];
  for (const { title, settings } of SETTING_GROUPS) {
    lines.push('', title);
    for (const declared of Object.values(settings) as Setting<unknown>[]) {
      lines.push(`  ${declared.env}${declared.secret ? ' *' : ''}  (default: ${defaultText(declared)}; ${declared.kind.accepts})`);
      lines.push(...wrap(docOf(declared), 100).map((line) => `      ${line}`));
    }
  }
  return `${lines.join('\n').replaceAll('`', '')}\n`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}
