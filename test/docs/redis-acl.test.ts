import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentedAclRules } from '../support/redis-acl.js';

/**
 * The gateway's Redis ACL rules are written twice for their readers: the `ACL SETUSER gateway` line of
 * docs/operations.md (which the Redis tests run as the gateway's user) and deploy/compose/redis-gateway.acl (which
 * the compose fleet and the deploy tests give their Redis). A command added to one and not the other would pass one
 * set of tests and refuse sharing in the other's deployments.
 */
describe('the Redis ACL rules', () => {
  it('are the same in docs/operations.md and deploy/compose/redis-gateway.acl', () => {
    const composeRules = readFileSync(new URL('../../deploy/compose/redis-gateway.acl', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .flatMap((line) => line.trim().split(/\s+/));
    expect(composeRules).toEqual(documentedAclRules());
  });
});
