import { watch as fsWatch, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../../src/gateway/reload/folder-watch.js';
import { MountedVolume } from '../../support/mounted-volume.js';
import { within } from '../../support/within.js';

const root = mkdtempSync(join(tmpdir(), 'folder-watch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const EVENT_TIMEOUT_MS = 10_000;
let folders = 0;
const folder = () => {
  const path = join(root, `case-${++folders}`);
  mkdirSync(path);
  return path;
};

/** A watcher on `paths` that counts its calls, and tells when the next one comes. */
function watching(paths: string[]) {
  let calls = 0;
  let next: () => void = () => {};
  const watcher = new FolderWatcher(
    paths,
    () => {
      calls += 1;
      next();
    },
    20,
  );
  watchers.push(watcher);
  return {
    watcher,
    get calls() {
      return calls;
    },
    /** Resolves at the next call; `change` is made once it waits. */
    called(change: () => void): Promise<void> {
      const called = new Promise<void>((resolve) => (next = resolve));
      change();
      return within(called, EVENT_TIMEOUT_MS, 'the change to be seen');
    },
  };
}
const watchers: FolderWatcher[] = [];
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.close();
});

/** A folder `secrets` holding a file `keys`, and a watcher on that file. */
function watchedSecrets() {
  const dir = folder();
  const secrets = join(dir, 'secrets');
  mkdirSync(secrets);
  writeFileSync(join(secrets, 'keys'), 'one');
  const paths = [join(secrets, 'keys')];
  return { dir, secrets, paths, watch: watching(paths) };
}

describe('FolderWatcher', () => {
  it('sees a Kubernetes Secret updated by its ..data link, again and again, once for each update', async () => {
    const volume = new MountedVolume(join(folder(), 'secrets'), { 'gateway-api-keys': 'one', 'redis-url': 'redis://a' });
    const watch = watching([volume.path('gateway-api-keys')]);
    for (const keys of ['two', 'three', 'four']) {
      await watch.called(() => volume.update({ 'gateway-api-keys': keys, 'redis-url': 'redis://a' }));
      // As the reloader does after each change: what the links lead to has moved.
      watch.watcher.watch([volume.path('gateway-api-keys')]);
    }
    // Four or five events an update (new folder, link, rename, removal), each burst taken as one call.
    expect(watch.calls).toBe(3);
    expect(watch.watcher.folders).toEqual([volume.dir, join(volume.dir, '..2026_11_28_01_00_00.000000004')]);
  });

  it('sees a file written in place, and one an editor renames over it', async () => {
    const dir = folder();
    const file = join(dir, 'keys');
    writeFileSync(file, 'one');
    const watch = watching([file]);
    await watch.called(() => writeFileSync(file, 'two'));
    await watch.called(() => {
      writeFileSync(join(dir, '.keys.swp'), 'three');
      renameSync(join(dir, '.keys.swp'), file);
    });
  });

  it('sees a manifest added to a folder of manifests, and a file a link leads to outside its folder', async () => {
    const manifests = folder();
    const elsewhere = folder();
    writeFileSync(join(elsewhere, 'real-keys'), 'one');
    const link = join(folder(), 'keys');
    symlinkSync(join(elsewhere, 'real-keys'), link);
    const watch = watching([manifests, link]);
    await watch.called(() => writeFileSync(join(manifests, 'mobile.json'), '{}'));
    await watch.called(() => writeFileSync(join(elsewhere, 'real-keys'), 'two'));
  });

  it('is not set off by other files written beside a watched one', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'api-keys'), 'one');
    const watch = watching([join(dir, 'api-keys')]);
    // A sentinel on the busy file, in the same folder: once it has seen the last write, the watcher has seen them all.
    const sentinel = watching([join(dir, 'app.log')]);
    await sentinel.called(() => {
      for (let line = 0; line < 50; line += 1) writeFileSync(join(dir, 'app.log'), `line ${line}`, { flag: 'a' });
    });
    // A second burst, seen after the first: a call the first set off in the watcher (its timer set with the sentinel's
    // first, of the same length) would have come before this one. Ordered by events, not by waiting.
    await sentinel.called(() => writeFileSync(join(dir, 'app.log'), 'again', { flag: 'a' }));
    expect(watch.calls).toBe(0);
    await watch.called(() => writeFileSync(join(dir, 'api-keys'), 'two'));
    expect(watch.calls).toBe(1);
  });

  it('sees a link to a folder of versions swapped (current -> v1, then v2), and watches the new version from then on', async () => {
    const dir = folder();
    for (const name of ['v1', 'v2']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'keys'), name);
    }
    symlinkSync('v1', join(dir, 'current'));
    const paths = [join(dir, 'current', 'keys')];
    const watch = watching(paths);
    // The folder holding the link, where its swap is seen, and the folder it leads to, where the file is written.
    expect(watch.watcher.folders).toEqual([dir, join(dir, 'v1')]);
    await watch.called(() => {
      symlinkSync('v2', join(dir, 'next'));
      renameSync(join(dir, 'next'), join(dir, 'current'));
    });
    watch.watcher.watch(paths);
    expect(watch.watcher.folders).toEqual([dir, join(dir, 'v2')]);
    await watch.called(() => writeFileSync(join(dir, 'v2', 'keys'), 'v2, written again'));
    expect(watch.calls).toBe(2);
  });

  it('sees a folder removed and made again, and the file written in it then', async () => {
    const { dir, secrets, paths, watch } = watchedSecrets();
    await watch.called(() => rmSync(secrets, { recursive: true }));
    // As the reloader does after each change: the folder is gone, so the one that held it is watched for its return.
    watch.watcher.watch(paths);
    expect(watch.watcher.folders).toEqual([dir]);
    await watch.called(() => mkdirSync(secrets));
    watch.watcher.watch(paths);
    expect(watch.watcher.folders).toEqual([secrets]);
    await watch.called(() => writeFileSync(join(secrets, 'keys'), 'two'));
    // Removed again, and now seen by the folder's own watch.
    await watch.called(() => rmSync(secrets, { recursive: true }));
    watch.watcher.watch(paths);
    expect(watch.watcher.folders).toEqual([dir]);
  });

  it('watches a folder made again under the same name anew, where the watch on the old one would hear nothing', async () => {
    const { secrets, paths, watch } = watchedSecrets();
    // Replaced at once, before the change is read: the same name, another folder.
    await watch.called(() => {
      rmSync(secrets, { recursive: true });
      mkdirSync(secrets);
      writeFileSync(join(secrets, 'keys'), 'two');
    });
    watch.watcher.watch(paths);
    expect(watch.watcher.folders).toEqual([secrets]);
    await watch.called(() => writeFileSync(join(secrets, 'keys'), 'three'));
  });

  it('leaves no watch and no timer behind once closed', async () => {
    const dir = folder();
    const file = join(dir, 'keys');
    writeFileSync(file, 'one');
    const count = (kind: string) => process.getActiveResourcesInfo().filter((resource) => resource === kind).length;
    // A closed watch's handle is let go of after the loop's check phase: two immediates later, the earlier tests' are gone.
    const handlesClosed = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    await handlesClosed();
    const before = count('FSEventWrap');
    const watch = watching([file]);
    expect(count('FSEventWrap')).toBe(before + 1);
    // A watch of the test's own on the same folder hears the change in the same turn as the watcher, which has then set
    // its timer for the call to come.
    const heard = new Promise<void>((resolve) => {
      const probe = fsWatch(dir, () => {
        probe.close();
        setImmediate(resolve);
      });
    });
    writeFileSync(file, 'two');
    await within(heard, EVENT_TIMEOUT_MS, 'the change to be heard');
    const timers = count('Timeout');
    watch.watcher.close();
    expect(count('Timeout')).toBe(timers - 1);
    await handlesClosed();
    expect(count('FSEventWrap')).toBe(before);
    expect(watch.watcher.folders).toEqual([]);
    expect(watch.calls).toBe(0);
  });
});
