import { type FSWatcher, realpathSync, statSync, watch } from 'node:fs';
import { dirname, resolve } from 'node:path';

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
 * tell, by content. Folders on file systems that report no events (some
 * network file systems) are never heard from: SIGHUP is the way there.
 */
export class FolderWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
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
    for (const [folder, watcher] of this.#watchers) {
      if (!folders.has(folder)) {
        watcher.close();
        this.#watchers.delete(folder);
      }
    }
    for (const folder of folders) {
      if (this.#watchers.has(folder)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, () => this.#changed());
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

  #changed(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#closed) this.#onChange();
    }, this.#debounceMs);
  }
}

/**
 * The folder of each path and of what it leads to, and what a path leads to
 * where it is a folder; each as what it is, links resolved, so that a folder
 * reached through a link that now leads elsewhere is watched anew.
 */
function foldersOf(paths: readonly string[]): Set<string> {
  const folders = new Set<string>();
  const add = (folder: string) => {
    try {
      folders.add(realpathSync(folder));
    } catch {
      // Not there: nothing to watch in it.
    }
  };
  for (const path of paths.map((path) => resolve(path))) {
    add(dirname(path));
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    add(dirname(real));
    if (isFolder(real)) folders.add(real);
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
