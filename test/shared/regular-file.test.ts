import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileRefusedError, readRegularFile } from '../../src/shared/regular-file.js';

const folder = mkdtempSync(join(tmpdir(), 'regular-file-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('readRegularFile', () => {
  it('reads a regular file whole', () => {
    const path = join(folder, 'keys');
    writeFileSync(path, 'web:0123456789abcdef0123456789abcdef\n');
    expect(readRegularFile(path, 1024)).toBe('web:0123456789abcdef0123456789abcdef\n');
  });

  it('refuses a file larger than its bound', () => {
    const path = join(folder, 'large');
    writeFileSync(path, 'x'.repeat(65));
    expect(() => readRegularFile(path, 64)).toThrow(FileRefusedError);
  });

  // A file whose content is not what its size says, as one being written while it is read: /proc's files say 0 bytes
  // and hold more, and were read as their first byte.
  it('refuses a file that holds more than its size says, rather than a part of it', () => {
    expect(() => readRegularFile('/proc/self/status', 64 * 1024)).toThrow(/changed while it was read/);
  });
});
