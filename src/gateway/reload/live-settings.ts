import { type AccessPolicy, type AccessSettings, createAccessPolicy } from '../access/client-access.js';
import { createJwtVerifier, type JwtVerifier, sameJwtSettings } from '../access/jwt.js';
import type { TrustedDocuments } from '../graphql/trusted-documents.js';

/** What a reload may replace while the gateway serves: who may call it, and which documents it runs. */
export interface ReloadableSettings extends AccessSettings {
  trustedDocuments: TrustedDocuments | undefined;
}

/**
 * The access policy and the trusted documents in effect. A reload replaces
 * each whole, with a new object, and never changes one in place: a request
 * takes the access policy in effect when it arrives and is decided by it to
 * the end (a bearer token being verified is verified with the keys it began
 * with), and looks its document up once, in the manifest in effect then, so
 * that what a request has started with it finishes with. New requests meet
 * the new ones.
 */
export class LiveSettings {
  #settings: ReloadableSettings;
  #verifyJwt: JwtVerifier | undefined;
  #policy: AccessPolicy;
  #documents: TrustedDocuments | undefined;

  /** The request handler's access check: the policy in effect. */
  readonly checkAccess: AccessPolicy = (headers, address) => this.#policy(headers, address);

  /**
   * Where TRUSTED_DOCUMENTS is set, the manifest in effect, read through at
   * each lookup (the plugin holds this object, not a manifest); undefined
   * where it is not: then no reload can set it.
   */
  readonly trustedDocuments: TrustedDocuments | undefined;

  constructor(settings: ReloadableSettings) {
    this.#settings = settings;
    this.#verifyJwt = settings.jwt && createJwtVerifier(settings.jwt);
    this.#policy = createAccessPolicy(settings, this.#verifyJwt);
    this.#documents = settings.trustedDocuments;
    const live = this;
    this.trustedDocuments = settings.trustedDocuments && {
      get manifests() {
        return live.#documents!.manifests;
      },
      get documents() {
        return live.#documents!.documents;
      },
    };
  }

  /** Whether anyone may call the gateway now, with no credential (ALLOW_ANONYMOUS as last read). */
  get allowsAnonymous(): boolean {
    return this.#settings.allowAnonymous;
  }

  /** Puts `settings` in effect for the requests that arrive from now on; true where the trusted documents changed. */
  replace(settings: ReloadableSettings): boolean {
    // A verifier for the same settings is kept, and with it the JWKS keys it has fetched.
    if (!sameJwtSettings(this.#settings.jwt, settings.jwt)) this.#verifyJwt = settings.jwt && createJwtVerifier(settings.jwt);
    this.#policy = createAccessPolicy(settings, this.#verifyJwt);
    this.#settings = settings;
    const documentsChanged = this.#documents !== undefined && settings.trustedDocuments !== this.#documents;
    if (this.#documents !== undefined && settings.trustedDocuments !== undefined) this.#documents = settings.trustedDocuments;
    return documentsChanged;
  }
}
