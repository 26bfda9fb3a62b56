import { encodeGlobalID } from '@pothos/plugin-relay';
import { type DocumentNode, Kind, type SelectionSetNode } from 'graphql';
import type { CompanyResult } from '../../src/lookup-service/index.js';
import type { CompanyDetailsFragment } from '../generated/graphql.js';

/** How the gateway presents a company of the embedded data set, field for field. */
export function expectedCompany(company: CompanyResult, countryCode: string | null): CompanyDetailsFragment {
  const structured = company.addressStructured;
  return {
    id: encodeGlobalID('Company', `${company.jurisdiction}:${company.companyNumber}`),
    name: company.name,
    companyNumber: company.companyNumber,
    jurisdiction: company.jurisdiction,
    status: company.status,
    statusText: company.status,
    incorporatedDate: company.incorporatedDate,
    isPlatformMember: company.isPlatformMember,
    address:
      company.address === null && structured === null
        ? null
        : {
            formatted: company.address,
            streetLine1: structured?.streetLine1 ?? null,
            streetLine2: structured?.streetLine2 ?? null,
            city: structured?.city ?? null,
            region: structured?.region ?? null,
            postcode: structured?.postcode ?? null,
            country: structured?.country ?? null,
            countryCode,
            latitude: structured?.latitude ?? null,
            longitude: structured?.longitude ?? null,
          },
    previousNames: company.previousNames.map(({ name, startDate, endDate }) => ({ name, startDate, endDate })),
    avatar: { image: company.avatar.image, initials: company.avatar.initials },
  };
}

/** The selection set under the fields `path` names, one in another, from the first operation of `document`. */
export function selectionAt(document: DocumentNode, path: readonly string[]): SelectionSetNode {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (operation === undefined) throw new Error('The document has no operation');
  return path.reduce((selectionSet, name) => {
    const field = selectionSet.selections.find((selection) => selection.kind === Kind.FIELD && selection.name.value === name);
    if (field?.kind !== Kind.FIELD || field.selectionSet === undefined) throw new Error(`No selection under ${name}`);
    return field.selectionSet;
  }, operation.selectionSet);
}

/**
 * `value`, an answer as every field would be given, cut to the fields
 * `selectionSet` asks for, at every depth: what an operation that selects
 * less is answered. Fields only, by name (no aliases or fragments).
 */
export function selectedOf(value: unknown, selectionSet: SelectionSetNode): unknown {
  if (Array.isArray(value)) return value.map((entry) => selectedOf(entry, selectionSet));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const selected: Record<string, unknown> = {};
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) throw new Error('selectedOf reads fields only');
    const name = selection.name.value;
    selected[name] = selection.selectionSet ? selectedOf(object[name], selection.selectionSet) : object[name];
  }
  return selected;
}
