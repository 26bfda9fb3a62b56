import { ADDRESS, type Address } from '../upstream/company.js';
import { builder } from './builder.js';
import { toCountryCode } from './country-code.js';
import { reportInvalidField, upstreamFields } from './upstream-field.js';

const expose = upstreamFields(ADDRESS, 'an address');

export const AddressRef = builder.objectRef<Address>('Address').implement({
  description: 'A registered address: the one-line form and its parts. Any part may be null when the register does not hold it.',
  fields: (t) => ({
    formatted: expose(t, 'formatted', 'The whole address on one line.'),
    streetLine1: expose(t, 'streetLine1', 'First street line.'),
    streetLine2: expose(t, 'streetLine2', 'Second street line.'),
    city: expose(t, 'city', 'City or town.'),
    region: expose(t, 'region', 'County, region or state.'),
    postcode: expose(t, 'postcode', 'Postcode or Eircode.'),
    country: expose(t, 'country', 'The country as the register gives it: usually an ISO code, sometimes a name.'),
    countryCode: t.field({
      type: 'CountryCode',
      nullable: true,
      description: 'ISO 3166-1 alpha-2 code of `country`, when it can be recognised.',
      resolve: (address, _args, context, info) => {
        reportInvalidField(address, 'country', context, info);
        return address.country === null ? null : toCountryCode(address.country);
      },
    }),
    latitude: expose(t, 'latitude', 'Latitude in decimal degrees.'),
    longitude: expose(t, 'longitude', 'Longitude in decimal degrees.'),
  }),
});
