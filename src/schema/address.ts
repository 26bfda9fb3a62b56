import type { Address } from '../upstream/company.js';
import { builder } from './builder.js';
import { toCountryCode } from './country-code.js';
import { reportInvalidField, upstreamFieldsOf } from './upstream-field.js';

const field = upstreamFieldsOf<Address>();

export const AddressRef = builder.objectRef<Address>('Address').implement({
  description: 'A registered address: the one-line form and its parts. Any part may be null when the register does not hold it.',
  fields: (t) => ({
    formatted: t.string({ nullable: true, description: 'The whole address on one line.', resolve: field('formatted') }),
    streetLine1: t.string({ nullable: true, description: 'First street line.', resolve: field('streetLine1') }),
    streetLine2: t.string({ nullable: true, description: 'Second street line.', resolve: field('streetLine2') }),
    city: t.string({ nullable: true, description: 'City or town.', resolve: field('city') }),
    region: t.string({ nullable: true, description: 'County, region or state.', resolve: field('region') }),
    postcode: t.string({ nullable: true, description: 'Postcode or Eircode.', resolve: field('postcode') }),
    country: t.string({
      nullable: true,
      description: 'The country as the register gives it: usually an ISO code, sometimes a name.',
      resolve: field('country'),
    }),
    countryCode: t.field({
      type: 'CountryCode',
      nullable: true,
      description: 'ISO 3166-1 alpha-2 code of `country`, when it can be recognised.',
      resolve: (address, _args, context, info) => {
        reportInvalidField(address, 'country', context, info);
        return address.country === null ? null : toCountryCode(address.country);
      },
    }),
    latitude: t.float({ nullable: true, description: 'Latitude in decimal degrees.', resolve: field('latitude') }),
    longitude: t.float({ nullable: true, description: 'Longitude in decimal degrees.', resolve: field('longitude') }),
  }),
});
