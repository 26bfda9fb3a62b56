import type { HttpRequest } from './http.js';

/** One malformed request and how the gateway must answer it. */
export interface BadInputCase {
  name: string;
  request: HttpRequest;
  status: number;
  /** The first error message: exactly, or a pattern where it quotes a long input. */
  message: string | RegExp;
}

const c = (name: string, request: HttpRequest, status: number, message: string | RegExp): BadInputCase => ({
  name,
  request,
  status,
  message,
});

const JSON_TYPE = 'application/json';
const ACCEPT = 'application/graphql-response+json';
const NO_DOCUMENT = 'The request holds no GraphQL document: send one in "query", such as {"query": "{ __typename }"}';

function post(body: string | Buffer, contentType: string = JSON_TYPE, headers: Record<string, string> = {}): HttpRequest {
  return { method: 'POST', headers: { 'content-type': contentType, accept: ACCEPT, ...headers }, body };
}

function postJson(value: unknown): HttpRequest {
  return post(JSON.stringify(value));
}

function get(params: Record<string, string>, headers: Record<string, string> = {}): HttpRequest {
  return { method: 'GET', path: `/graphql?${new URLSearchParams(params).toString()}`, headers: { accept: ACCEPT, ...headers } };
}

const SEARCH =
  'query ($q: String!, $jurisdiction: CountryCode!, $pageSize: Int, $after: String) { searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize, after: $after) { totalCount } }';

function withVariables(variables: unknown): HttpRequest {
  return postJson({ query: SEARCH, variables });
}

function nested(depth: number): string {
  return `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`;
}

/** The bad-input battery (test/gateway/bad-input-battery.test.ts). */
export const BAD_INPUT_CASES: BadInputCase[] = [
  // Broken JSON
  c(
    'JSON cut short',
    post('{"query": "{ __typename }"'),
    400,
    "The request body is not valid JSON: Expected ',' or '}' after property value in JSON at position 26",
  ),
  c(
    'JSON with a trailing comma',
    post('{"query": "{ __typename }",}'),
    400,
    'The request body is not valid JSON: Expected double-quoted property name in JSON at position 27',
  ),
  c(
    'JSON with single quotes',
    post("{'query': '{ __typename }'}"),
    400,
    "The request body is not valid JSON: Expected property name or '}' in JSON at position 1",
  ),
  c(
    'JSON with an unquoted key',
    post('{query: "{ __typename }"}'),
    400,
    "The request body is not valid JSON: Expected property name or '}' in JSON at position 1",
  ),
  c(
    'JSON with a comment',
    post('{"query": "{ __typename }" /* hi */}'),
    400,
    "The request body is not valid JSON: Expected ',' or '}' after property value in JSON at position 27",
  ),
  c(
    'JSON with a bad escape',
    post('{"query": "\\x"}'),
    400,
    'The request body is not valid JSON: Bad escaped character in JSON at position 12',
  ),
  c(
    'JSON with a raw newline in a string',
    post('{"query": "{\n__typename }"}'),
    400,
    'The request body is not valid JSON: Bad control character in string literal in JSON at position 12',
  ),
  c(
    'JSON with NaN',
    post('{"query": "{ __typename }", "variables": {"x": NaN}}'),
    400,
    "The request body is not valid JSON: Unexpected token 'N'",
  ),
  c('bare word', post('undefined'), 400, 'The request body is not valid JSON: its first characters are not JSON'),
  c('lone opening bracket', post('['), 400, 'The request body is not valid JSON: Unexpected end of JSON input'),
  c('lone brace', post('{'), 400, "The request body is not valid JSON: Expected property name or '}' in JSON at position 1"),
  c(
    'two JSON objects',
    post('{"query": "{ __typename }"}{"query": "{ __typename }"}'),
    400,
    'The request body is not valid JSON: Unexpected non-whitespace character after JSON at position 27',
  ),
  c(
    'JSON then garbage',
    post('{"query": "{ __typename }"} trailing'),
    400,
    'The request body is not valid JSON: Unexpected non-whitespace character after JSON at position 28',
  ),
  c('a NUL byte', post('\u0000'), 400, 'The request body is not valid JSON: Unexpected character U+0000'),
  c(
    'a byte-order mark before JSON',
    post('\uFEFF{"query": "{ __typename }"}'),
    400,
    'The request body is not valid JSON: Unexpected character U+FEFF',
  ),
  c(
    'invalid UTF-8 bytes',
    post(Buffer.from([0x7b, 0x22, 0x71, 0xff, 0xfe, 0x22, 0x7d])),
    400,
    "The request body is not valid JSON: Expected ':' after property name in JSON at position 6",
  ),
  c('empty body', post(''), 400, 'The request body is not valid JSON: Unexpected end of JSON input'),
  c('whitespace body', post('   \n '), 400, 'The request body is not valid JSON: Unexpected end of JSON input'),
  c('JSON null', post('null'), 400, 'The request body must be a JSON object such as {"query": "{ __typename }"}, not null'),
  c('JSON number', post('42'), 400, 'The request body must be a JSON object such as {"query": "{ __typename }"}, not a number'),
  c(
    'JSON string',
    post('"{ __typename }"'),
    400,
    'The request body must be a JSON object such as {"query": "{ __typename }"}, not a string',
  ),
  c('JSON true', post('true'), 400, 'The request body must be a JSON object such as {"query": "{ __typename }"}, not true'),
  c('an array of operations (batching off)', postJson([{ query: '{ __typename }' }]), 400, 'Batching is not supported.'),
  c('an empty array', postJson([]), 400, 'Batching is not supported.'),
  // Content types
  c(
    'text/plain',
    post(JSON.stringify({ query: '{ __typename }' }), 'text/plain'),
    415,
    "Send the request as application/json, not text/plain: add the header Content-Type: application/json (curl -d sends a form's type unless told otherwise); a form or text body is read only with one of the headers x-graphql-yoga-csrf, apollo-require-preflight",
  ),
  c(
    'text/plain with a charset',
    post(JSON.stringify({ query: '{ __typename }' }), 'text/plain; charset=utf-8'),
    415,
    "Send the request as application/json, not text/plain; charset=utf-8: add the header Content-Type: application/json (curl -d sends a form's type unless told otherwise); a form or text body is read only with one of the headers x-graphql-yoga-csrf, apollo-require-preflight",
  ),
  c(
    'form-urlencoded without a CSRF header',
    post('query=%7B__typename%7D', 'application/x-www-form-urlencoded'),
    415,
    "Send the request as application/json, not application/x-www-form-urlencoded: add the header Content-Type: application/json (curl -d sends a form's type unless told otherwise); a form or text body is read only with one of the headers x-graphql-yoga-csrf, apollo-require-preflight",
  ),
  c(
    'multipart/form-data without a CSRF header',
    post('--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n{ __typename }\r\n--x--', 'multipart/form-data; boundary=x'),
    415,
    "Send the request as application/json, not multipart/form-data; boundary=x: add the header Content-Type: application/json (curl -d sends a form's type unless told otherwise); a form or text body is read only with one of the headers x-graphql-yoga-csrf, apollo-require-preflight",
  ),
  c(
    'multipart/form-data with a CSRF header',
    post('--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n{ __typename }\r\n--x--', 'multipart/form-data; boundary=x', {
      'x-graphql-yoga-csrf': '1',
    }),
    415,
    'Send the request as application/json, not multipart/form-data; boundary=x',
  ),
  c(
    'application/xml',
    post('<query>{ __typename }</query>', 'application/xml'),
    415,
    'Send the request as application/json, not application/xml',
  ),
  c('text/html', post('<p>{ __typename }</p>', 'text/html'), 415, 'Send the request as application/json, not text/html'),
  c(
    'application/octet-stream',
    post(JSON.stringify({ query: '{ __typename }' }), 'application/octet-stream'),
    415,
    'Send the request as application/json, not application/octet-stream',
  ),
  c('image/png', post(Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png'), 415, 'Send the request as application/json, not image/png'),
  c(
    'a nonsense content type',
    post(JSON.stringify({ query: '{ __typename }' }), 'nonsense'),
    415,
    'Send the request as application/json, not nonsense',
  ),
  c(
    'no content type',
    { method: 'POST', headers: { accept: ACCEPT }, body: JSON.stringify({ query: '{ __typename }' }) },
    415,
    'Send the request as application/json; the Content-Type header is missing',
  ),
  // Accept headers
  c(
    'Accept: text/plain',
    { ...postJson({ query: '{ __typename }' }), headers: { 'content-type': JSON_TYPE, accept: 'text/plain' } },
    406,
    'Answers are application/graphql-response+json, application/json, text/event-stream, multipart/mixed in UTF-8; the Accept header (text/plain) allows none of them; send Accept: application/graphql-response+json',
  ),
  c(
    'Accept: image/png',
    { ...postJson({ query: '{ __typename }' }), headers: { 'content-type': JSON_TYPE, accept: 'image/png' } },
    406,
    'Answers are application/graphql-response+json, application/json, text/event-stream, multipart/mixed in UTF-8; the Accept header (image/png) allows none of them; send Accept: application/graphql-response+json',
  ),
  c(
    'Accept: JSON in latin1',
    { ...postJson({ query: '{ __typename }' }), headers: { 'content-type': JSON_TYPE, accept: 'application/json; charset=iso-8859-1' } },
    406,
    'Answers are application/graphql-response+json, application/json, text/event-stream, multipart/mixed in UTF-8; the Accept header (application/json; charset=iso-8859-1) allows none of them; send Accept: application/graphql-response+json',
  ),
  c(
    'Accept: application/xml on GET',
    get({ query: '{ __typename }' }, { accept: 'application/xml' }),
    406,
    'Answers are application/graphql-response+json, application/json, text/event-stream, multipart/mixed in UTF-8; the Accept header (application/xml) allows none of them; send Accept: application/graphql-response+json',
  ),
  // Missing or malformed parameters
  c('an empty object', postJson({}), 400, NO_DOCUMENT),
  c('variables only', postJson({ variables: { q: 'a' } }), 400, NO_DOCUMENT),
  c('operationName only', postJson({ operationName: 'Search' }), 400, NO_DOCUMENT),
  c('query null', postJson({ query: null }), 400, NO_DOCUMENT),
  c('query empty', postJson({ query: '' }), 400, NO_DOCUMENT),
  c('query blank', postJson({ query: '   ' }), 400, NO_DOCUMENT),
  c('query only a comment', postJson({ query: '# nothing' }), 400, 'Syntax Error: Unexpected <EOF>.'),
  c('query a number', postJson({ query: 42 }), 400, 'Expected "query" param to be a string, but given number.'),
  c('query a boolean', postJson({ query: true }), 400, 'Expected "query" param to be a string, but given boolean.'),
  c('query an array', postJson({ query: ['{ __typename }'] }), 400, 'Expected "query" param to be a string, but given array.'),
  c('query an object', postJson({ query: { kind: 'Document' } }), 400, 'Expected "query" param to be a string, but given object.'),
  c(
    'variables a string',
    postJson({ query: '{ __typename }', variables: '{"q": "a"}x' }),
    400,
    'Expected "variables" param to be empty or an object, but given string.',
  ),
  c(
    'variables a number',
    postJson({ query: '{ __typename }', variables: 1 }),
    400,
    'Expected "variables" param to be empty or an object, but given number.',
  ),
  c(
    'variables an array',
    postJson({ query: '{ __typename }', variables: [1] }),
    400,
    'Expected "variables" param to be empty or an object, but given array.',
  ),
  c(
    'variables a boolean',
    postJson({ query: '{ __typename }', variables: true }),
    400,
    'Expected "variables" param to be empty or an object, but given boolean.',
  ),
  c('operationName a number', postJson({ query: '{ __typename }', operationName: 1 }), 400, '"operationName" must be a string, got number'),
  c(
    'operationName an object',
    postJson({ query: '{ __typename }', operationName: {} }),
    400,
    '"operationName" must be a string, got object',
  ),
  c(
    'operationName an array',
    postJson({ query: '{ __typename }', operationName: ['A'] }),
    400,
    '"operationName" must be a string, got an array',
  ),
  c(
    'extensions a string',
    postJson({ query: '{ __typename }', extensions: 'x' }),
    400,
    'Expected "extensions" param to be empty or an object, but given string.',
  ),
  c(
    'extensions an array',
    postJson({ query: '{ __typename }', extensions: [] }),
    400,
    'Expected "extensions" param to be empty or an object, but given array.',
  ),
  c(
    'an unknown parameter',
    postJson({ query: '{ __typename }', queryId: 'x' }),
    400,
    'Unexpected parameter "queryId" in the request body.',
  ),
  c(
    'a documentId without trusted documents',
    postJson({ documentId: 'sha256:abc' }),
    400,
    'Unexpected parameter "documentId" in the request body.',
  ),
  // GraphQL syntax
  c('unclosed selection', postJson({ query: '{ __typename' }), 400, 'Syntax Error: Expected Name, found <EOF>.'),
  c('unopened selection', postJson({ query: '__typename }' }), 400, 'Syntax Error: Unexpected Name "__typename".'),
  c(
    'unterminated string',
    postJson({ query: '{ searchCompanies(q: "abc, jurisdiction: "GB") { totalCount } }' }),
    400,
    'Syntax Error: Unterminated string.',
  ),
  c('an invalid character', postJson({ query: '{ __typename ^ }' }), 400, 'Syntax Error: Unexpected character: "^".'),
  c('a lone dollar', postJson({ query: 'query ($) { __typename }' }), 400, 'Syntax Error: Expected Name, found ")".'),
  c('empty braces', postJson({ query: '{}' }), 400, 'Syntax Error: Expected Name, found "}".'),
  c('empty arguments', postJson({ query: '{ searchCompanies() { totalCount } }' }), 400, 'Syntax Error: Expected Name, found ")".'),
  c('a number where a name goes', postJson({ query: '{ 123 }' }), 400, 'Syntax Error: Expected Name, found Int "123".'),
  c(
    'a fragment without a type condition',
    postJson({ query: '{ ...F } fragment F { __typename }' }),
    400,
    'Syntax Error: Expected "on", found "{".',
  ),
  c(
    'a bad block string',
    postJson({ query: '{ searchCompanies(q: """abc, jurisdiction: "GB") { totalCount } }' }),
    400,
    'Syntax Error: Unterminated string.',
  ),
  c('deeply nested braces', postJson({ query: `${'{ '.repeat(300)}${'}'.repeat(300)}` }), 400, 'Syntax Error: Expected Name, found "{".'),
  c(
    'a deeply nested list literal',
    postJson({ query: `{ searchCompanies(q: ${'['.repeat(500)}"a"${']'.repeat(500)}, jurisdiction: "GB") { totalCount } }` }),
    400,
    'Syntax Error: Token limit of 1000 exceeded.',
  ),
  // GraphQL validation
  c(
    'an unknown field',
    postJson({ query: '{ companies { name } }' }),
    400,
    'Cannot query field "companies" on type "Query". Did you mean "company"?',
  ),
  c(
    'an unknown field on Company',
    postJson({ query: '{ company(jurisdiction: "GB", companyNumber: "1") { director } }' }),
    400,
    'Cannot query field "director" on type "Company".',
  ),
  c(
    'an unknown argument',
    postJson({ query: '{ searchCompanies(q: "a", jurisdiction: "GB", sort: NAME) { totalCount } }' }),
    400,
    'Unknown argument "sort" on field "Query.searchCompanies".',
  ),
  c(
    'a missing required argument',
    postJson({ query: '{ searchCompanies(q: "a") { totalCount } }' }),
    400,
    'Field "searchCompanies" argument "jurisdiction" of type "CountryCode!" is required, but it was not provided.',
  ),
  c(
    'an argument of the wrong type',
    postJson({ query: '{ searchCompanies(q: 1, jurisdiction: "GB") { totalCount } }' }),
    400,
    'String cannot represent a non string value: 1',
  ),
  c(
    'pageSize as a string literal',
    postJson({ query: '{ searchCompanies(q: "a", jurisdiction: "GB", pageSize: "10") { totalCount } }' }),
    400,
    'Int cannot represent non-integer value: "10"',
  ),
  c(
    'pageSize too big for Int',
    postJson({ query: '{ searchCompanies(q: "a", jurisdiction: "GB", pageSize: 99999999999) { totalCount } }' }),
    400,
    'Int cannot represent non 32-bit signed integer value: 99999999999',
  ),
  c(
    'a selection on a scalar',
    postJson({ query: '{ searchCompanies(q: "a", jurisdiction: "GB") { totalCount { value } } }' }),
    400,
    'Field "totalCount" must not have a selection since type "Int!" has no subfields.',
  ),
  c(
    'no selection on an object',
    postJson({ query: '{ searchCompanies(q: "a", jurisdiction: "GB") }' }),
    400,
    'Field "searchCompanies" of type "CompanyConnection!" must have a selection of subfields. Did you mean "searchCompanies { ... }"?',
  ),
  c(
    'an undefined variable',
    postJson({ query: '{ searchCompanies(q: $q, jurisdiction: "GB") { totalCount } }' }),
    400,
    'Variable "$q" is not defined.',
  ),
  c('an unused variable', postJson({ query: 'query ($x: String) { __typename }' }), 400, 'Variable "$x" is never used.'),
  c(
    'a variable of an unknown type',
    postJson({ query: 'query ($x: Nope) { __typename }' }),
    400,
    'Unknown type "Nope". Did you mean "Node"?',
  ),
  c(
    'a variable of an output type',
    postJson({ query: 'query ($x: Company) { __typename }' }),
    400,
    'Variable "$x" cannot be non-input type "Company".',
  ),
  c(
    'a variable of the wrong type for its place',
    postJson({ query: 'query ($q: Int!) { searchCompanies(q: $q, jurisdiction: "GB") { totalCount } }', variables: { q: 1 } }),
    400,
    'Variable "$q" of type "Int!" used in position expecting type "String!".',
  ),
  c('an unknown directive', postJson({ query: '{ __typename @cached }' }), 400, 'Unknown directive "@cached".'),
  c('an undefined fragment', postJson({ query: '{ ...Missing }' }), 400, 'Unknown fragment "Missing".'),
  c('an unused fragment', postJson({ query: '{ __typename } fragment F on Query { __typename }' }), 400, 'Fragment "F" is never used.'),
  c(
    'a fragment cycle',
    postJson({ query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }' }),
    400,
    'Cannot spread fragment "A" within itself via "B".',
  ),
  c(
    'a fragment on an unknown type',
    postJson({ query: '{ ... on Nope { __typename } }' }),
    400,
    'Unknown type "Nope". Did you mean "Node"?',
  ),
  c(
    'two operations with one name',
    postJson({ query: 'query A { __typename } query A { __typename }' }),
    400,
    'The document holds 2 operations; say which to execute in "operationName"',
  ),
  c(
    'an anonymous operation among others',
    postJson({ query: '{ __typename } query B { __typename }' }),
    400,
    'The document holds 2 operations; say which to execute in "operationName"',
  ),
  c(
    'conflicting fields under one name',
    postJson({ query: '{ x: __typename x: searchCompanies(q: "a", jurisdiction: "GB") { totalCount } }' }),
    400,
    'Fields "x" conflict because "__typename" and "searchCompanies" are different fields. Use different aliases on the fields to fetch both if this was intentional.',
  ),
  c(
    'a mutation (there are none)',
    postJson({ query: 'mutation { __typename }' }),
    400,
    'This gateway has no mutations; only queries are executed',
  ),
  c(
    'a subscription (there are none)',
    postJson({ query: 'subscription { __typename }' }),
    400,
    'This gateway has no subscriptions; only queries are executed',
  ),
  c(
    'a type definition',
    postJson({ query: 'type Evil { x: Int }' }),
    400,
    'The document holds no operation to execute; send a query such as "{ searchCompanies(…) { … } }"',
  ),
  c(
    'a schema extension',
    postJson({ query: 'extend type Query { evil: Int }' }),
    400,
    'The document holds no operation to execute; send a query such as "{ searchCompanies(…) { … } }"',
  ),
  // Variables of wrong types
  c(
    'q a number',
    withVariables({ q: 1, jurisdiction: 'GB' }),
    400,
    'Variable "$q" got invalid value 1; String cannot represent a non string value: 1',
  ),
  c('q null', withVariables({ q: null, jurisdiction: 'GB' }), 400, 'Variable "$q" of non-null type "String!" must not be null.'),
  c('q missing', withVariables({ jurisdiction: 'GB' }), 400, 'Variable "$q" of required type "String!" was not provided.'),
  c(
    'q an object',
    withVariables({ q: { $ne: '' }, jurisdiction: 'GB' }),
    400,
    'Variable "$q" got invalid value { $ne: "" }; String cannot represent a non string value: { $ne: "" }',
  ),
  c(
    'q a list',
    withVariables({ q: ['a', 'b'], jurisdiction: 'GB' }),
    400,
    'Variable "$q" got invalid value ["a", "b"]; String cannot represent a non string value: ["a", "b"]',
  ),
  c(
    'jurisdiction a number',
    withVariables({ q: 'a', jurisdiction: 44 }),
    400,
    'Variable "$jurisdiction" got invalid value 44; CountryCode must be a string such as "GB"',
  ),
  c(
    'jurisdiction a list',
    withVariables({ q: 'a', jurisdiction: ['GB'] }),
    400,
    'Variable "$jurisdiction" got invalid value ["GB"]; CountryCode must be a string such as "GB"',
  ),
  c(
    'pageSize a string',
    withVariables({ q: 'a', jurisdiction: 'GB', pageSize: 'ten' }),
    400,
    'Variable "$pageSize" got invalid value "ten"; Int cannot represent non-integer value: "ten"',
  ),
  c(
    'pageSize a fraction',
    withVariables({ q: 'a', jurisdiction: 'GB', pageSize: 1.5 }),
    400,
    'Variable "$pageSize" got invalid value 1.5; Int cannot represent non-integer value: 1.5',
  ),
  c(
    'pageSize beyond 32 bits',
    withVariables({ q: 'a', jurisdiction: 'GB', pageSize: 2 ** 40 }),
    400,
    'Variable "$pageSize" got invalid value 1099511627776; Int cannot represent non 32-bit signed integer value: 1099511627776',
  ),
  c(
    'pageSize a boolean',
    withVariables({ q: 'a', jurisdiction: 'GB', pageSize: true }),
    400,
    'Variable "$pageSize" got invalid value true; Int cannot represent non-integer value: true',
  ),
  c(
    'after a number',
    withVariables({ q: 'a', jurisdiction: 'GB', after: 5 }),
    400,
    'Variable "$after" got invalid value 5; String cannot represent a non string value: 5',
  ),
  c(
    'after an object',
    withVariables({ q: 'a', jurisdiction: 'GB', after: {} }),
    400,
    'Variable "$after" got invalid value {}; String cannot represent a non string value: {}',
  ),
  c(
    'variables nested very deep',
    withVariables({ q: JSON.parse(`${'['.repeat(2_000)}${']'.repeat(2_000)}`), jurisdiction: 'GB' }),
    400,
    'Variable "$q" got invalid value [[[Array]]]; String cannot represent a non string value: [[[Array]]]',
  ),
  // Huge input
  c(
    'a huge string literal in the document',
    postJson({ query: `{ searchCompanies(q: "${'a'.repeat(20_000)}", jurisdiction: "GB") { totalCount } }` }),
    400,
    'The GraphQL document is 20061 characters long; at most 10000 are accepted. Send a shorter one',
  ),
  c(
    'a huge comment in the document',
    postJson({ query: `# ${'x'.repeat(20_000)}\n{ __typename }` }),
    400,
    'The GraphQL document is 20017 characters long; at most 10000 are accepted. Send a shorter one',
  ),
  c(
    'a huge variable, over the body limit',
    withVariables({ q: 'a'.repeat(200_000), jurisdiction: 'GB' }),
    413,
    'The request body is larger than 102400 bytes; send a smaller one',
  ),
  c(
    'a huge operation name',
    postJson({ query: '{ __typename }', operationName: 'N'.repeat(5_000) }),
    400,
    /^The document holds no operation named "N{100}…"$/,
  ),
  c(
    'a huge body of whitespace',
    post(`{"query": "{ __typename }"${' '.repeat(200_000)}}`),
    413,
    'The request body is larger than 102400 bytes; send a smaller one',
  ),
  c(
    'a declared Content-Length over the limit',
    { method: 'POST', headers: { 'content-type': JSON_TYPE, accept: ACCEPT, 'content-length': '10000000' }, body: 'x'.repeat(10_000_000) },
    413,
    'The request body is larger than 102400 bytes; send a smaller one',
  ),
  c(
    'many tokens',
    postJson({ query: `{ ${'__typename '.repeat(1_001)}}` }),
    400,
    'The GraphQL document is 11014 characters long; at most 10000 are accepted. Send a shorter one',
  ),
  // Depth, aliases, directives
  c('nested deeper than allowed', postJson({ query: nested(12) }), 400, 'Syntax Error: Query depth limit of 10 exceeded, found 13.'),
  c(
    'an alias flood',
    postJson({
      query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: company(jurisdiction: "GB", companyNumber: "${i}") { name }`).join(' ')} }`,
    }),
    400,
    'Syntax Error: Aliases limit of 15 exceeded, found 16.',
  ),
  c(
    'a huge alias flood',
    postJson({ query: `{ ${Array.from({ length: 300 }, (_, i) => `a${i}: node(id: "${i}") { id }`).join(' ')} }` }),
    400,
    'Syntax Error: Token limit of 1000 exceeded.',
  ),
  c(
    'a directive flood',
    postJson({ query: `{ __typename ${'@include(if: true) '.repeat(21)}}` }),
    400,
    'Syntax Error: Directives limit of 20 exceeded, found 21.',
  ),
  c(
    'searches over the budget',
    postJson({
      query: `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: searchCompanies(q: "q${i}", jurisdiction: "GB") { totalCount }`).join(' ')} }`,
    }),
    400,
    'This operation would make 6 distinct upstream searches; at most 5 are allowed per operation (each searchCompanies, company or node field with different arguments counts). Split it into several operations',
  ),
  // Operation names
  c(
    'an unknown operation name',
    postJson({ query: 'query A { __typename }', operationName: 'B' }),
    400,
    'The document holds no operation named "B"; it has "A"',
  ),
  c(
    'an operation name for an anonymous query',
    postJson({ query: '{ __typename }', operationName: 'A' }),
    400,
    'The document holds no operation named "A"',
  ),
  c(
    'no operation name with two operations',
    postJson({ query: 'query A { __typename } query B { __typename }' }),
    400,
    'The document holds 2 operations; say which to execute in "operationName"',
  ),
  c(
    'an operation name two operations share',
    postJson({ query: 'query A { __typename } query A { __typename }', operationName: 'A' }),
    400,
    'The document holds more than one operation named "A"; give each its own name',
  ),
  c(
    'an empty operation name with two operations',
    postJson({ query: 'query A { __typename } query B { __typename }', operationName: '' }),
    400,
    'The document holds 2 operations; say which to execute in "operationName"',
  ),
  // GET
  c('GET with a mutation', get({ query: 'mutation { __typename }' }), 405, 'Can only perform a mutation operation from a POST request.'),
  c(
    'GET with a named mutation',
    get({ query: 'query A { __typename } mutation B { __typename }', operationName: 'B' }),
    405,
    'Can only perform a mutation operation from a POST request.',
  ),
  c(
    'GET without a query',
    get({}),
    400,
    'The request holds no GraphQL document: send one in the "query" parameter, such as ?query={__typename}',
  ),
  c(
    'GET with variables that are not JSON',
    get({ query: '{ __typename }', variables: '{q:' }),
    400,
    'The "variables" query parameter must be a JSON object, and is not JSON',
  ),
  c(
    'GET with extensions that are not JSON',
    get({ query: '{ __typename }', extensions: '[' }),
    400,
    'The "extensions" query parameter must be a JSON object, and is not JSON',
  ),
  c(
    'GET with variables an array',
    get({ query: '{ __typename }', variables: '[1]' }),
    400,
    'Expected "variables" param to be empty or an object, but given array.',
  ),
  c(
    'GET with extensions a string',
    get({ query: '{ __typename }', extensions: '"x"' }),
    400,
    'Expected "extensions" param to be empty or an object, but given string.',
  ),
  c(
    'a form POST with variables that are not JSON',
    post(`query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent('{q:')}`, 'application/x-www-form-urlencoded', {
      'x-graphql-yoga-csrf': '1',
    }),
    400,
    'The "variables" form field must be a JSON object, and is not JSON',
  ),
  c(
    'a form POST with extensions that are not JSON',
    post(`query=${encodeURIComponent('{ __typename }')}&extensions=x`, 'application/x-www-form-urlencoded; charset=utf-8', {
      'x-graphql-yoga-csrf': '1',
    }),
    400,
    'The "extensions" form field must be a JSON object, and is not JSON',
  ),
  c('GET with a broken query', get({ query: '{ __typename' }), 400, 'Syntax Error: Expected Name, found <EOF>.'),
  // Methods and paths
  c(
    'PUT',
    { method: 'PUT', headers: { 'content-type': JSON_TYPE, accept: ACCEPT }, body: JSON.stringify({ query: '{ __typename }' }) },
    405,
    'GraphQL only supports GET and POST requests.',
  ),
  c('DELETE', { method: 'DELETE', headers: { accept: ACCEPT } }, 405, 'GraphQL only supports GET and POST requests.'),
  c(
    'PATCH',
    { method: 'PATCH', headers: { 'content-type': JSON_TYPE, accept: ACCEPT }, body: JSON.stringify({ query: '{ __typename }' }) },
    405,
    'GraphQL only supports GET and POST requests.',
  ),
  c(
    'an unknown path',
    {
      method: 'POST',
      path: '/graphql2',
      headers: { 'content-type': JSON_TYPE, accept: ACCEPT },
      body: JSON.stringify({ query: '{ __typename }' }),
    },
    404,
    'Nothing here; GraphQL is served at /graphql',
  ),
  // Browsers
  c(
    'a cross-site fetch',
    post(JSON.stringify({ query: '{ __typename }' }), JSON_TYPE, {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'cors',
    }),
    403,
    "Cross-site requests from https://evil.example are refused: it is not in CORS_ALLOWED_ORIGINS; call from an allowed origin, or ask the gateway's operators to add it",
  ),
  c(
    'a preflight from an unknown origin',
    { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } },
    403,
    "Origin https://evil.example is not allowed: it is not in CORS_ALLOWED_ORIGINS; call from an allowed origin, or ask the gateway's operators to add it",
  ),
];
