import { COMPANY, type Company } from '../upstream/company.js';
import { AddressRef } from './address.js';
import { AvatarRef } from './avatar.js';
import { builder } from './builder.js';
import { CompanyStatusRef, toCompanyStatus } from './company-status.js';
import { isCountryCode } from './country-code.js';
import { BadUserInputError } from '../errors/field-errors.js';
import type { GatewayContext } from './context.js';
import { checkQueryLength, companyNumberArgs, jurisdictionArgs } from './search-arguments.js';
import { PreviousNameRef } from './previous-name.js';
import { staleDataWarning } from '../errors/warnings.js';
import { reportInvalidField, upstreamFields, upstreamFieldsOf } from './upstream-field.js';

const field = upstreamFieldsOf<Company>();
const expose = upstreamFields(COMPANY, 'a company');

/** The local part of a company's global ID; numbers are unique only within a jurisdiction. */
function keyOf(jurisdiction: string, companyNumber: string): string {
  return `${jurisdiction}:${companyNumber}`;
}

function companyKey(company: Company): string {
  return keyOf(company.jurisdiction, company.companyNumber);
}

const COMPANY_KEY = /^([A-Z]{2}):(\S.*)$/s;

function parseCompanyKey(key: string): { jurisdiction: string; companyNumber: string } {
  const [, jurisdiction = '', companyNumber = ''] = COMPANY_KEY.exec(key) ?? [];
  return { jurisdiction, companyNumber };
}

/** Accepts the local part of a Company ID only in the form this gateway issues. */
function checkCompanyKey(key: string, context: GatewayContext): string {
  const { jurisdiction, companyNumber } = parseCompanyKey(key);
  if (!isCountryCode(jurisdiction)) throw new BadUserInputError('id', 'is not a company ID issued by this gateway');
  checkQueryLength(companyNumber, context.limits.maxQueryLength, 'id');
  return key;
}

export const CompanyRef = builder.loadableNode('Company', {
  description: 'A company on the register of one jurisdiction.',
  id: { resolve: companyKey, parse: checkCompanyKey },
  toKey: companyKey,
  cacheResolved: true,
  load: (keys: string[], context) =>
    Promise.all(
      keys.map(async (key) => {
        const { jurisdiction, companyNumber } = parseCompanyKey(key);
        try {
          const lookup = await context.upstream.findCompany(jurisdiction, companyNumber, context.deadline);
          context.notes.recordData(lookup.freshUntil, { query: lookup.query, companies: [lookup.company] });
          if (lookup.servedOnError) {
            context.notes.addWarning(staleDataWarning(lookup.servedOnError, lookup.fetchedAt, `company ${key}`));
          }
          return lookup.company;
        } catch (error) {
          return error as Error;
        }
      }),
    ),
  fields: (t) => ({
    name: expose(t, 'name', 'Registered name.'),
    companyNumber: expose(t, 'companyNumber', 'Number on the register; opaque, unique only together with `jurisdiction`.'),
    jurisdiction: expose(t, 'jurisdiction', 'Country of the register.'),
    status: t.field({
      type: CompanyStatusRef,
      nullable: true,
      description: 'Status on the register; `UNKNOWN` for a value this gateway does not know yet.',
      resolve: (company, _args, context, info) => {
        reportInvalidField(company, 'status', context, info);
        return company.status === null ? null : toCompanyStatus(company.status);
      },
    }),
    statusText: expose(t, 'status', 'The status exactly as the register gives it.'),
    address: t.field({ type: AddressRef, nullable: true, description: 'Registered address.', resolve: field('address') }),
    incorporatedDate: expose(t, 'incorporatedDate', 'When the company was incorporated (UTC).'),
    isPlatformMember: expose(t, 'isPlatformMember', 'Whether the company is a member of the platform that runs the lookup service.'),
    previousNames: t.field({
      type: [PreviousNameRef],
      description:
        'Names the company was registered under before, as the register lists them; an entry the register sent unreadable is left out, with a partial error.',
      resolve: (company, _args, context, info) => {
        reportInvalidField(company, 'previousNames', context, info, 'the list leaves out what could not be read');
        return company.previousNames;
      },
    }),
    avatar: t.field({ type: AvatarRef, nullable: true, description: 'Logo or initials to show.', resolve: field('avatar') }),
  }),
});

builder.queryField('company', (t) =>
  t.field({
    type: CompanyRef,
    nullable: true,
    description:
      'The company with this exact number on the register of `jurisdiction`, or null when there is none. Several lookups in one request are batched and de-duplicated.',
    args: { ...jurisdictionArgs, ...companyNumberArgs },
    resolve: (_root, { jurisdiction, companyNumber }, context) => {
      checkQueryLength(companyNumber.trim(), context.limits.maxQueryLength, 'companyNumber');
      return CompanyRef.getDataloader(context).load(keyOf(jurisdiction, companyNumber.trim()));
    },
  }),
);
