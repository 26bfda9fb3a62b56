import type { GraphQLResolveInfo } from 'graphql';
import type { CappedField, Field, InvalidFields, Read, Shape } from '../upstream/company.js';
import { InvalidUpstreamFieldError } from '../errors/field-errors.js';
import type { builder } from './builder.js';
import type { GatewayContext } from './context.js';

interface ReadFromUpstream {
  invalid?: InvalidFields;
}

/** The partial error for `field` of `parent`, when the upstream sent what feeds it unreadable. */
export function reportInvalidField(
  parent: ReadFromUpstream,
  field: string,
  context: GatewayContext,
  info: GraphQLResolveInfo,
  consequence = 'it reads as null',
): void {
  const upstreamField = parent.invalid?.[field];
  if (upstreamField === undefined) return;
  context.notes.addError(
    new InvalidUpstreamFieldError(`The company lookup service sent an unreadable ${upstreamField}; ${consequence}`, upstreamField, info),
  );
}

/**
 * Resolvers for the fields of one type read from the upstream: each returns
 * the value as read and reports it when it was unreadable.
 */
export function upstreamFieldsOf<T extends ReadFromUpstream>() {
  return <K extends keyof T & string>(field: K) =>
    (parent: T, _args: object, context: GatewayContext, info: GraphQLResolveInfo): T[K] => {
      reportInvalidField(parent, field, context, info);
      return parent[field];
    };
}

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The fields of a shape that hold one value, which a scalar exposes. */
type ValueFieldName<S extends Shape> = {
  [K in keyof S & string]: S[K] extends Field ? (S[K]['kind'] extends 'object' | 'list' | 'address' ? never : K) : never;
}[keyof S & string];

/** The scalar a value of each kind is exposed as. */
const SCALARS = {
  text: 'String',
  url: 'URL',
  dateTime: 'DateTime',
  date: 'Date',
  number: 'Float',
  boolean: 'Boolean',
  jurisdiction: 'CountryCode',
} as const;

/**
 * What a client reads of a field's cap (upstream/company.ts), after its
 * description: the longest string of it the gateway takes from the upstream,
 * and what a longer one becomes.
 */
function capNote(name: string, field: CappedField, entry: string): string {
  if (field.kind !== 'text' && field.kind !== 'url') return '';
  const cap = `At most ${field.maxLength.toLocaleString('en')} characters`;
  return field.kind === 'text' && field.required
    ? ` ${cap}: ${entry} the register sends with a longer ${name} is left out, with an \`UPSTREAM_INVALID_FIELD\` error.`
    : ` ${cap}: a longer value from the register reads as null, with an \`UPSTREAM_INVALID_FIELD\` error.`;
}

/**
 * Exposes a field of a shape declared in upstream/company.ts, in one line:
 * its scalar follows from its kind, it is nullable unless required, its cap
 * is written after `description`, and an unreadable value is reported where
 * a client selects it. `entry` names one object of the shape, for the note
 * of a required field: what is left out when the register sends it too long.
 *
 *     const expose = upstreamFields(COMPANY, 'a company');
 *     name: expose(t, 'name', 'Registered name.'),
 *
 * The key it is given in `fields` names it in the schema: `statusText:
 * expose(t, 'status', …)` exposes the upstream's status as it came.
 */
export function upstreamFields<S extends Shape>(shape: S, entry: string) {
  return <Parent extends Read<S>>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>, name: ValueFieldName<S>, description: string) => {
    const field = shape[name] as CappedField | Exclude<Field, CappedField>;
    if (field.kind === 'object' || field.kind === 'list' || field.kind === 'address') {
      throw new TypeError(`${name} is not a value: expose it with its own object type`);
    }
    const required = field.kind === 'jurisdiction' || (field.kind === 'text' && field.required);
    const note = field.kind === 'number' || field.kind === 'boolean' ? '' : capNote(name, field, entry);
    return t.field({
      // Pothos types a field by its scalar's name; the declaration decides it here, so the checker cannot follow.
      type: SCALARS[field.kind] as 'String',
      nullable: !required as false,
      description: `${description}${note}`,
      resolve: (parent, _args, context, info) => {
        reportInvalidField(parent, name, context, info);
        return parent[name] as string;
      },
    });
  };
}
