import { readFileSync } from 'node:fs';

/** The ACL rules docs/operations.md gives the gateway's user (*Running Redis safely*), after its name and password. */
export function documentedAclRules(): string[] {
  const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const line = /^ACL SETUSER gateway on >PASSWORD (.+)$/m.exec(docs);
  if (line === null) throw new Error('docs/operations.md gives no `ACL SETUSER gateway on >PASSWORD …` line');
  return line[1]!.split(' ');
}

/** The `ACL SETUSER` arguments that make `user` with `password` as the docs say, on keys and channels under `prefix` rather than `csg:`. */
export function documentedAclUser(user: string, password: string, prefix = 'csg:'): string[] {
  return ['ACL', 'SETUSER', user, 'on', `>${password}`, ...documentedAclRules().map((rule) => rule.replace(/^([~&])csg:/, `$1${prefix}`))];
}
