import { type FSWatcher, realpathSync, statSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/**
 * Tells when the files at some paths may have changed, by watching the
 * folders that hold them rather than the files. Kubernetes updates a mounted
 * Secret or ConfigMap by writing a new timestamped folder beside the old and
 * renaming a new `..data` link over the old one: each file (`key ->
 * ..data/key`) is never touched, and a watch on the file, or on the folder
 * its link led to at the start, sees nothing of the next update (Apollo
 * Router's hot reload missed such updates, apollographql/router#1695 and
 * #2245). An editor that saves by renaming a new file over the old one is the
 * same case. So each path's own folder is watched, and where a path is a link
 * the folder of what it leads to as well, and a folder named as a path (a
 * folder of manifests) is watched itself; `watch()` is called again after
 * each change, since what the links lead to moves with each update.
 *
 * The events of one update (four or five for Kubernetes' swap) come as a
 * burst: `onChange` is called once, `debounceMs` after the first. It only
 * means "read them again": whether anything changed is for the reader to
 * tell, by content. Only the names that matter in a folder set it off: the
 * watched files, what their links lead to, and Kubernetes' `..`-named entries;
 * another file written over and over beside a secret costs nothing. Folders
 * on file systems that report no events (some network file systems) are
 * never heard from: SIGHUP is the way there.
 */
export class FolderWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  /** For each folder watched, the names in it whose change matters, or `any` for a folder named as a path. */
  #names = new Map<string, Names>();
  readonly #onChange: () => void;
  readonly #debounceMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(paths: readonly string[], onChange: () => void, debounceMs: number) {
    this.#onChange = onChange;
    this.#debounceMs = debounceMs;
    this.watch(paths);
  }

  /** Watches the folders `paths` need now, and stops watching those they no longer do. */
  watch(paths: readonly string[]): void {
    if (this.#closed) return;
    const folders = foldersOf(paths);
    this.#names = folders;
    for (const [folder, watcher] of this.#watchers) {
      if (!folders.has(folder)) {
        watcher.close();
        this.#watchers.delete(folder);
      }
    }
    for (const folder of folders.keys()) {
      if (this.#watchers.has(folder)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, (_event, name) => {
          if (this.#matters(folder, name)) this.#changed();
        });
      } catch {
        // Not there (yet): its file cannot be read either, which the reader says; the folder above it is watched.
        continue;
      }
      // A folder removed or unmounted: watched again, if it is back, once the change it makes has been read.
      watcher.on('error', () => {
        watcher.close();
        if (this.#watchers.get(folder) === watcher) this.#watchers.delete(folder);
        this.#changed();
      });
      this.#watchers.set(folder, watcher);
    }
  }

  /** The folders watched now. */
  get folders(): string[] {
    return [...this.#watchers.keys()];
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  #matters(folder: string, name: string | Buffer | null): boolean {
    const names = this.#names.get(folder);
    // No name: the platform did not say which entry changed.
    if (names === undefined || names === 'any' || name === null) return true;
    const entry = name.toString();
    return entry.startsWith('..') || names.has(entry);
  }

  #changed(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#closed) this.#onChange();
    }, this.#debounceMs);
  }
}

/** The names in a folder whose change matters, or `any`. */
type Names = Set<string> | 'any';

/**
 * The folder of each path and of what it leads to, and what a path leads to
 * where it is a folder; each as what it is, links resolved, so that a folder
 * reached through a link that now leads elsewhere is watched anew. With each,
 * the names in it that matter.
 */
function foldersOf(paths: readonly string[]): Map<string, Names> {
  const folders = new Map<string, Names>();
  const add = (folder: string, name: string | 'any') => {
    let real: string;
    try {
      real = realpathSync(folder);
    } catch {
      // Not there: nothing to watch in it.
      return;
    }
    const names = folders.get(real);
    if (name === 'any' || names === 'any') folders.set(real, 'any');
    else folders.set(real, new Set([...(names ?? []), name]));
  };
  for (const path of paths.map((path) => resolve(path))) {
    add(dirname(path), basename(path));
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    add(dirname(real), basename(real));
    if (isFolder(real)) add(real, 'any');
  }
  return folders;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
