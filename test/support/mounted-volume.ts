import { existsSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A folder laid out and updated as kubelet does a mounted Secret or ConfigMap
 * (its AtomicWriter): the files in a timestamped folder, `..data` a link to
 * it, each key a link `key -> ..data/key`. An update writes a new timestamped
 * folder, renames a new `..data` link over the old one (the one atomic step),
 * adds links for new keys, removes those of keys gone, and removes the old
 * folder. The key links themselves never change.
 */
export class MountedVolume {
  #generation = 0;
  #keys: string[] = [];

  constructor(
    readonly dir: string,
    files: Record<string, string>,
  ) {
    mkdirSync(dir, { recursive: true });
    this.update(files);
  }

  /** The path of a key's file, as a pod reads it. */
  path(key: string): string {
    return join(this.dir, key);
  }

  update(files: Record<string, string>): void {
    const old = existsSync(join(this.dir, '..data')) ? readlinkSync(join(this.dir, '..data')) : undefined;
    const folder = `..2026_11_28_01_00_00.${String(++this.#generation).padStart(9, '0')}`;
    mkdirSync(join(this.dir, folder));
    for (const [key, content] of Object.entries(files)) writeFileSync(join(this.dir, folder, key), content);
    symlinkSync(folder, join(this.dir, '..data_tmp'));
    renameSync(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const key of Object.keys(files)) {
      if (!existsSync(join(this.dir, key))) symlinkSync(join('..data', key), join(this.dir, key));
    }
    if (old !== undefined) {
      for (const key of this.#keys) if (!(key in files)) unlinkSync(join(this.dir, key));
      rmSync(join(this.dir, old), { recursive: true });
    }
    this.#keys = Object.keys(files);
  }
}
