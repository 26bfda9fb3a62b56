import { type FSWatcher, lstatSync, readlinkSync, type Stats, watch } from 'node:fs';
import { basename, dirname, isAbsolute, join, parse, resolve, sep } from 'node:path';

/**
 * Tells when the files at some paths may have changed, by watching the
 * folders that hold them rather than the files. Kubernetes updates a mounted
 * Secret or ConfigMap by writing a new timestamped folder beside the old and
 * renaming a new `..data` link over the old one: each file (`key ->
 * ..data/key`) is never touched, and a watch on the file, or on the folder
 * its link led to at the start, sees nothing of the next update (Apollo
 * Router's hot reload missed such updates, apollographql/router#1695 and
 * #2245). An editor that saves by renaming a new file over the old one is the
 * same case, and so is a link to a folder of versions (`current -> v1`)
 * swapped to the next. So each path is followed from the root, one entry at a
 * time, and watched are: the folder holding each link met on the way (where a
 * link swapped is seen, and only there), the folder holding what the path
 * leads to, that thing itself where it is a folder (a folder of manifests),
 * and, where an entry on the way is missing, the folder that should hold it,
 * which sees it come back. `watch()` is called again after each change, since
 * what the links lead to moves with each update; a folder removed and made
 * again is a new folder, watched anew.
 *
 * The events of one update (four or five for Kubernetes' swap) come as a
 * burst: `onChange` is called once, `debounceMs` after the first. It only
 * means "read them again": whether anything changed is for the reader to
 * tell, by content. Only the names that matter in a folder set it off: the
 * links on the way, what the path leads to, a missing entry, and the folder
 * itself moved or removed (which Node names by the folder's own name);
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
      if (!folders.has(folder)) this.#drop(folder, watcher);
    }
    for (const folder of folders.keys()) {
      if (this.#watchers.has(folder)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, (_event, name) => {
          const entry = name?.toString();
          // The folder itself moved or removed, which Node names by the folder's own name: its watch hears nothing
          // more (a folder made again under the name is another), so it is dropped, and made anew by the next
          // watch(). An entry of the same name costs no more than a watch made again.
          if (entry === basename(folder)) this.#drop(folder, watcher);
          if (this.#matters(folder, entry)) this.#changed();
        });
      } catch {
        // Gone since it was found: the change that removed it is read, and the folder above it watched then.
        continue;
      }
      // A folder unmounted, or another failure of its watch: watched again, if it is back, once the change it makes has been read.
      watcher.on('error', () => {
        this.#drop(folder, watcher);
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

  #drop(folder: string, watcher: FSWatcher): void {
    watcher.close();
    if (this.#watchers.get(folder) === watcher) this.#watchers.delete(folder);
  }

  #matters(folder: string, entry: string | undefined): boolean {
    const names = this.#names.get(folder);
    // No name: the platform did not say which entry changed.
    if (names === undefined || names === 'any' || entry === undefined) return true;
    return names.has(entry) || entry === basename(folder);
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

/** Links followed at most on one path, as Linux does before it gives up with ELOOP. */
const MAX_LINKS = 40;

/**
 * The folders to watch for `paths` (see FolderWatcher), each as what it is,
 * links resolved, so that a folder is watched once however many paths lead
 * through it; with each, the names in it that matter.
 */
function foldersOf(paths: readonly string[]): Map<string, Names> {
  const folders = new Map<string, Names>();
  const add = (folder: string, name: string | 'any') => {
    const names = folders.get(folder);
    if (name === 'any' || names === 'any') folders.set(folder, 'any');
    else folders.set(folder, new Set([...(names ?? []), name]));
  };
  for (const path of paths) follow(resolve(path), add);
  return folders;
}

/**
 * Follows `path` from the root as the kernel does, one entry at a time, each
 * link replaced by what it says: `add` is told of the folder holding each
 * link met, of the folder holding what the path leads to (and of that, where
 * it is a folder), or of the folder that should hold the first entry missing.
 */
function follow(path: string, add: (folder: string, name: string | 'any') => void): void {
  let folder = parse(path).root;
  const rest = path.split(sep).filter((name) => name !== '');
  let links = 0;
  while (rest.length > 0) {
    const name = rest.shift()!;
    if (name === '.') continue;
    if (name === '..') {
      folder = dirname(folder);
      continue;
    }
    const entry = join(folder, name);
    let stats: Stats;
    try {
      stats = lstatSync(entry);
    } catch {
      // Missing (or out of reach): the folder above sees it come back.
      add(folder, name);
      return;
    }
    if (stats.isSymbolicLink()) {
      add(folder, name);
      let target: string;
      try {
        target = readlinkSync(entry);
      } catch {
        // Gone since it was found: the watch on its folder hears that.
        return;
      }
      if (++links > MAX_LINKS) return;
      if (isAbsolute(target)) folder = parse(target).root;
      rest.unshift(...target.split(sep).filter((part) => part !== ''));
    } else if (rest.length === 0) {
      add(folder, name);
      if (stats.isDirectory()) add(entry, 'any');
    } else if (stats.isDirectory()) {
      folder = entry;
    } else {
      // A file where a folder should be: nothing further can be read, and its folder sees it replaced.
      add(folder, name);
      return;
    }
  }
}
