import { encodeGlobalID } from '@pothos/plugin-relay';
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
