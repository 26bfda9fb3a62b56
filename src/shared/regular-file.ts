import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The file is there but is not one to read: not a regular file, or larger than its bound. The message says which, after the path. */
export class FileRefusedError extends Error {
  override readonly name = 'FileRefusedError';
}

/**
 * The text of the regular file at `path` (symbolic links followed), at most
 * `maxBytes` of it. Anything else is refused before a byte is read: a named
 * pipe or a device would block the start, or never end. The file is opened
 * without blocking (a pipe with no writer would otherwise hold `open` itself)
 * and judged by what it is once open, so that it cannot be swapped between a
 * look and the read. Throws the system's error where it cannot be opened or
 * read, and FileRefusedError where it is no file to read.
 */
export function readRegularFile(path: string, maxBytes: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new FileRefusedError(`is ${kindOf(stats)}, not a regular file`);
    if (stats.size > maxBytes) throw tooLarge(maxBytes);
    // One byte more than fstat said, so that a file that grew since is refused rather than cut where fstat saw it end.
    const buffer = Buffer.alloc(stats.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    // Being written (an editor's or a shell's write in place), or a file whose size says nothing (/proc): what was read
    // is a part of it, which may still parse (the first keys of a list). The write's own change asks for a read again.
    if (length !== stats.size) throw new FileRefusedError(`changed while it was read (${stats.size} bytes by its size, ${length} read)`);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(maxBytes: number): FileRefusedError {
  return new FileRefusedError(`is larger than ${maxBytes} bytes, the most it may hold`);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'something else';
}
