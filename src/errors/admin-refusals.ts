import { Refusal } from './refusal.js';

/** The realm of the admin server's bearer token, in `WWW-Authenticate`. */
export const ADMIN_REALM = 'company-search-admin';

/** No admin token, or another one. */
export class AdminUnauthenticatedError extends Refusal {
  readonly code = 'ADMIN_UNAUTHENTICATED';

  constructor(tokenGiven: boolean) {
    super(
      tokenGiven
        ? "The admin token is not this gateway's; send its ADMIN_TOKEN as Authorization: Bearer <token>"
        : 'The admin server needs Authorization: Bearer <ADMIN_TOKEN>',
      { headers: { 'www-authenticate': `Bearer realm="${ADMIN_REALM}"` } },
    );
  }
}

/** A path the admin server does not serve. */
export class AdminPathNotFoundError extends Refusal {
  readonly code = 'NOT_FOUND';

  constructor(purgePath: string) {
    super(`Nothing here; the admin server answers POST ${purgePath}`);
  }
}

/** A purge that names nothing to drop, or only part of it (`missing` says what is missing). */
export class PurgeTargetMissingError extends Refusal {
  readonly code = 'PURGE_TARGET_MISSING';

  constructor(missing: string) {
    super(`The purge ${missing}; name one of ${PURGE_FORMS}`);
  }
}

/** A purge that names more than one thing to drop. */
export class PurgeTargetAmbiguousError extends Refusal {
  readonly code = 'PURGE_TARGET_AMBIGUOUS';

  constructor(fields: readonly string[]) {
    super(`The purge names ${fields.join(' and ')} together; a purge names one of ${PURGE_FORMS}: send one purge for each`);
  }
}

/** A purge body that is not what a purge takes, as `problem` says. */
export class PurgeTargetInvalidError extends Refusal {
  readonly code = 'PURGE_TARGET_INVALID';

  constructor(problem: string) {
    super(`The purge's body is not one a purge takes: ${problem}`);
  }
}

const PURGE_FORMS =
  '{"jurisdiction":"GB","q":"holdings"}, {"jurisdiction":"GB"}, {"jurisdiction":"GB","companyNumber":"01234567"}, {"tag":"csg:c:GB:01234567"} or {"all":true}';
