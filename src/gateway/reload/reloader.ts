import {
  type ChangedSetting,
  changedSettings,
  ConfigError,
  type Env,
  type GatewayConfig,
  readConfig,
  reloadedFiles,
} from '../config/gateway-config.js';
import type { Logger } from '../logger.js';
import { FolderWatcher } from './folder-watch.js';

/** Long enough to take the events of one update (Kubernetes' swap, an editor's save) as one. */
export const RELOAD_DEBOUNCE_MS = 200;

/** What set a reload off, as its log line says it. */
export type ReloadTrigger = 'SIGHUP' | 'file change' | 'start';
const ON: Record<ReloadTrigger, string> = { SIGHUP: 'on SIGHUP', 'file change': 'on a file change', start: 'after start' };

export interface ReloaderOptions {
  /** The environment the gateway started with: the variables are what they were, the files they name are read again. */
  env: Env;
  /** The configuration the gateway started with. */
  config: GatewayConfig;
  /** Puts the settings that reload in effect, as they are in `config` (RunningGateway.reload); the others are as they were. */
  apply(config: GatewayConfig): void;
  logger: Logger;
  debounceMs?: number;
}

/**
 * Reads the configuration again, as a start would, on SIGHUP and when a file
 * of a setting that `reloads` may have changed (the API keys', the JWT
 * secret's, the trusted-documents manifests), and puts what changed of those
 * settings in effect. Only a configuration a start would accept is applied:
 * one that a start would refuse keeps every setting in use and is logged in
 * one line naming the problem and the file. What changed is told by content,
 * not by events: a reload that changes nothing logs an info line on SIGHUP,
 * and a debug line only on a file change (nobody asked). The
 * other settings apply at the next start; a reload that finds one of them
 * changed (a secret's file: UPSTREAM_CLIENT_SECRET_FILE, REDIS_URL_FILE) says
 * so. Reading is synchronous: files are small and bounded, and no request
 * meets settings half read.
 */
export class Reloader {
  readonly #env: Env;
  readonly #apply: (config: GatewayConfig) => void;
  readonly #logger: Logger;
  readonly #watcher: FolderWatcher;
  /** The settings in effect: those the gateway started with, and the reloaded ones since. */
  #inEffect: GatewayConfig;
  /** The last line a file change logged: the next file change does not log it again. */
  #lastNotice: string | undefined;
  /** The reload asked for and not begun yet. */
  #waiting: { trigger: ReloadTrigger; done: Promise<void> } | undefined;
  #closed = false;

  constructor(options: ReloaderOptions) {
    this.#env = options.env;
    this.#inEffect = options.config;
    this.#apply = options.apply;
    this.#logger = options.logger;
    this.#watcher = new FolderWatcher(
      reloadedFiles(this.#env),
      () => void this.reload('file change'),
      options.debounceMs ?? RELOAD_DEBOUNCE_MS,
    );
  }

  /** The folders watched now. */
  get watchedFolders(): string[] {
    return this.#watcher.folders;
  }

  /**
   * Asks for a reload; resolves once a reload begun after the ask has ended.
   * Asks are coalesced: one reload waits at most, run on the next turn of the
   * event loop, and it answers every ask made before it begins, so that a
   * storm of signals costs one reload a turn, with requests served between,
   * and the files are read as they were at the last ask or later. No reload
   * is ever under way when an ask comes: reading is synchronous. A SIGHUP
   * among the asks names the reload, so that it gets its answer.
   */
  reload(trigger: ReloadTrigger): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      if (trigger === 'SIGHUP') waiting.trigger = trigger;
      return waiting.done;
    }
    let ended!: () => void;
    const next = { trigger, done: new Promise<void>((resolve) => (ended = resolve)) };
    this.#waiting = next;
    setImmediate(() => {
      this.#waiting = undefined;
      this.#run(next.trigger);
      ended();
    });
    return next.done;
  }

  /** Stops watching; a reload asked for later does nothing. */
  close(): void {
    this.#closed = true;
    this.#watcher.close();
  }

  #run(trigger: ReloadTrigger): void {
    if (this.#closed) return;
    try {
      // Before reading: what the paths lead to may have moved (Kubernetes' `..data`, a folder made again), and a
      // change made while the files are read is then heard, and read by the next reload.
      this.#watcher.watch(reloadedFiles(this.#env));
      this.#reload(trigger);
    } catch (error) {
      // Not a problem of the files (those are ConfigErrors): a SIGHUP must not end the gateway for it.
      this.#logger.error({ err: error, trigger }, `Reload ${ON[trigger]} failed; the settings in use are kept`);
    } finally {
      // Whoever changed a file may be waiting for this line.
      this.#logger.flush();
    }
  }

  #reload(trigger: ReloadTrigger): void {
    let next: GatewayConfig;
    try {
      next = readConfig(this.#env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const named = error.files.filter((file) => !error.problems.some((problem) => problem.includes(file.slice(file.indexOf('=') + 1))));
      const where = named.length > 0 ? ` (${named.join(', ')})` : '';
      this.#notice(
        trigger,
        { trigger, problems: error.problems, files: error.files },
        `Reload ${ON[trigger]} refused, the settings in use are kept: ${error.problems.join('; ')}${where}`,
      );
      return;
    }
    const changed = changedSettings(this.#inEffect, next, this.#env);
    const applied = changed.filter((setting) => setting.reloads);
    const atRestart = changed.filter((setting) => !setting.reloads);
    if (changed.length === 0) {
      this.#lastNotice = undefined;
      // Whoever sent a SIGHUP is told it was heard; a file change or the start's check that finds nothing is no news.
      if (trigger === 'SIGHUP') this.#logger.info({ trigger }, `Reload ${ON[trigger]}: nothing changed`);
      else this.#logger.debug({ trigger }, `Reload ${ON[trigger]}: nothing changed`);
      return;
    }
    const restart =
      atRestart.length > 0 ? `${atRestart.map(({ variable }) => variable).join(', ')} changed, which applies only at a restart` : '';
    const fields = {
      trigger,
      changed: describe(applied),
      ...(atRestart.length > 0 && { restartToApply: atRestart.map((s) => s.variable) }),
    };
    if (applied.length === 0) {
      this.#notice(trigger, fields, `Nothing reloaded ${ON[trigger]}: ${restart}`);
      return;
    }
    const inEffect = { ...this.#inEffect, ...Object.fromEntries(applied.map(({ key }) => [key, next[key]])) } as GatewayConfig;
    this.#apply(inEffect);
    this.#inEffect = inEffect;
    this.#lastNotice = undefined;
    const what = applied.map(({ variable, change }) => `${variable} (${change})`).join(', ');
    this.#logger.info(fields, `Reloaded ${ON[trigger]}: ${what}${restart === '' ? '' : `; ${restart}`}`);
  }

  /** A warning, logged once for a run of file changes that find the same; a SIGHUP always gets its answer. */
  #notice(trigger: ReloadTrigger, fields: object, message: string): void {
    const repeated = trigger === 'file change' && message === this.#lastNotice;
    this.#lastNotice = trigger === 'file change' ? message : undefined;
    if (repeated) this.#logger.debug(fields, message);
    else this.#logger.warn(fields, message);
  }
}

function describe(settings: ChangedSetting[]): Record<string, string> {
  return Object.fromEntries(settings.map(({ variable, change }) => [variable, change]));
}
