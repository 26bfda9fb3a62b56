import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { perOperation } from '../../../src/gateway/limits/per-operation.js';

describe('perOperation', () => {
  it('computes once per document and operation name, and apart for each name and each document', () => {
    const computed: string[] = [];
    const firstField = perOperation((document, operationName) => {
      computed.push(operationName ?? '(only)');
      return `${operationName ?? '(only)'} of ${document.definitions.length}`;
    });
    const twoOperations = parse('query A { a } query B { b }');
    const oneOperation = parse('{ c }');

    expect(firstField(twoOperations, 'A')).toBe('A of 2');
    expect(firstField(twoOperations, 'A')).toBe('A of 2');
    expect(firstField(twoOperations, 'B')).toBe('B of 2');
    expect(firstField(oneOperation, null)).toBe('(only) of 1');
    expect(firstField(oneOperation, undefined)).toBe('(only) of 1');
    // The same text parsed again is another document: Yoga's parse cache is what makes them one.
    expect(firstField(parse('{ c }'), undefined)).toBe('(only) of 1');

    expect(computed).toEqual(['A', 'B', '(only)', '(only)']);
  });

  it('remembers nothing for an operation name the document does not define: names a client makes up have no bound', () => {
    const made = perOperation(() => ({}));
    const document = parse('query A { a }');
    expect(made(document, 'A')).toBe(made(document, 'A'));
    expect(made(document, 'NotThere')).not.toBe(made(document, 'NotThere'));
  });
});
