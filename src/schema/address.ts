import type { Address } from '../upstream/company.js';
import { builder } from './builder.js';
import { toCountryCode } from './country-code.js';

export const AddressRef = builder.objectRef<Address>('Address').implement({
  description:
    'A registered address: the one-line form and its parts. Any part may be null when the register does not hold it.',
  fields: (t) => ({
    formatted: t.exposeString('formatted', { nullable: true, description: 'The whole address on one line.' }),
    streetLine1: t.exposeString('streetLine1', { nullable: true, description: 'First street line.' }),
    streetLine2: t.exposeString('streetLine2', { nullable: true, description: 'Second street line.' }),
    city: t.exposeString('city', { nullable: true, description: 'City or town.' }),
    region: t.exposeString('region', { nullable: true, description: 'County, region or state.' }),
    postcode: t.exposeString('postcode', { nullable: true, description: 'Postcode or Eircode.' }),
    country: t.exposeString('country', {
      nullable: true,
      description: 'The country as the register gives it: usually an ISO code, sometimes a name.',
    }),
    countryCode: t.field({
      type: 'CountryCode',
      nullable: true,
      description: 'ISO 3166-1 alpha-2 code of `country`, when it can be recognised.',
      resolve: (address) => (address.country === null ? null : toCountryCode(address.country)),
    }),
    latitude: t.exposeFloat('latitude', { nullable: true, description: 'Latitude in decimal degrees.' }),
    longitude: t.exposeFloat('longitude', { nullable: true, description: 'Longitude in decimal degrees.' }),
  }),
});
