import { Kind } from 'graphql';
import { BadScalarValueError } from '../errors/field-errors.js';
import { DateResolver, DateTimeResolver, URLResolver } from 'graphql-scalars';
import { builder } from './builder.js';

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('Date', DateResolver);
builder.addScalarType('URL', URLResolver);

function readCountryCode(value: unknown): string {
  if (typeof value !== 'string') {
    throw new BadScalarValueError('CountryCode must be a string such as "GB"');
  }
  const trimmed = value.trim();
  return /^[A-Za-z]{2}$/.test(trimmed) ? trimmed.toUpperCase() : trimmed;
}

/**
 * Input is only normalized here (a two-letter code trimmed and upper-cased;
 * anything else is left as written, for the error to quote); whether it is a
 * real ISO code is checked with the argument, so the error can name the argument.
 */
builder.scalarType('CountryCode', {
  description:
    'An ISO 3166-1 alpha-2 country code such as `"GB"` or `"IE"`. On input, lower case and a bare `GB` are accepted too; codes ISO leaves to users, such as `XK`, are not.',
  serialize: (value) => value,
  parseValue: readCountryCode,
  // A bare `GB` parses as an enum value; it is accepted like the string "GB".
  parseLiteral: (node) => readCountryCode(node.kind === Kind.STRING || node.kind === Kind.ENUM ? node.value : undefined),
});
