import type { GatewayConfig } from './gateway-config.js';
import { describeRedisUrl } from './shared-state-settings.js';

/**
 * The configuration as it may be printed or logged: the client secret and the
 * JWT secret are never included, nor Redis's password, API keys appear by id only (not even their
 * hashes), trusted documents by manifest paths and count.
 */
export function describeConfig(config: GatewayConfig): Record<string, unknown> {
  const { upstream, apiKeys, jwt, trustedDocuments, redisUrl, ...rest } = config;
  return {
    ...rest,
    upstream: upstream ? { url: upstream.url.href, clientId: upstream.clientId, clientSecret: '[redacted]' } : 'embedded',
    apiKeys: apiKeys.map((key) => key.id),
    jwt: jwt && {
      issuer: jwt.issuer,
      audience: jwt.audience,
      ...('jwksUrl' in jwt.key ? { jwksUrl: jwt.key.jwksUrl.href } : { secret: '[redacted]' }),
    },
    redisUrl: redisUrl && describeRedisUrl(redisUrl),
    trustedDocuments: trustedDocuments && { manifests: trustedDocuments.manifests, documents: trustedDocuments.documents.size },
  };
}
