import type { CompanyStatus } from './company.js';
import { WeightedChoice } from './prng.js';
import type { SeededRandom } from './prng.js';

/** The register a company belongs to decides its number format, name suffix, address region and possible statuses. */
export type Register =
  | 'england-wales'
  | 'scotland'
  | 'northern-ireland'
  | 'limited-liability-partnership'
  | 'limited-partnership'
  | 'overseas'
  | 'ireland';

export const GB_REGISTER_WEIGHTS = new WeightedChoice<Register>([
  ['england-wales', 0.82],
  ['scotland', 0.08],
  ['northern-ireland', 0.04],
  ['limited-liability-partnership', 0.03],
  ['limited-partnership', 0.015],
  ['overseas', 0.015],
]);

const DOMESTIC_STATUS_WEIGHTS = new WeightedChoice<CompanyStatus>([
  ['ACTIVELY_TRADING', 0.64],
  ['DISSOLVED', 0.12],
  ['INACTIVE', 0.06],
  ['STRIKE_OFF_INITIATED', 0.05],
  ['IN_LIQUIDATION', 0.05],
  ['IN_ADMINISTRATION', 0.03],
  ['REMOVED', 0.03],
  ['CONVERTED_CLOSED', 0.02],
]);

const OVERSEAS_STATUS_WEIGHTS = new WeightedChoice<CompanyStatus>([
  ['OVERSEAS_ENTITY', 0.8],
  ['CLOSED_OVERSEAS_ENTITY', 0.2],
]);

export function randomStatus(random: SeededRandom, register: Register): CompanyStatus {
  return random.weighted(register === 'overseas' ? OVERSEAS_STATUS_WEIGHTS : DOMESTIC_STATUS_WEIGHTS);
}

/**
 * Numbers look like the registries' own: GB "01234567", "SC123456", "NI123456",
 * "OC123456", "LP012345", "FC012345"; IE six digits, older ones five, never padded.
 */
export function randomCompanyNumber(random: SeededRandom, register: Register): string {
  switch (register) {
    case 'england-wales':
      return String(random.int(100_000, 16_500_000)).padStart(8, '0');
    case 'scotland':
      return `SC${String(random.int(1_000, 850_000)).padStart(6, '0')}`;
    case 'northern-ireland':
      return `NI${String(random.int(1_000, 700_000)).padStart(6, '0')}`;
    case 'limited-liability-partnership':
      return `OC${random.int(300_000, 460_000)}`;
    case 'limited-partnership':
      return `LP${String(random.int(1_000, 25_000)).padStart(6, '0')}`;
    case 'overseas':
      return `FC${String(random.int(10_000, 45_000)).padStart(6, '0')}`;
    case 'ireland':
      return random.chance(0.15) ? String(random.int(10_000, 99_999)) : String(random.int(100_000, 790_000));
  }
}
