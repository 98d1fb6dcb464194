/**
 * Roles of the management API: `viewer` reads (resources, metrics, events, store queries), `operator` also changes
 * instances (restart, stop, delete, deploy). A route says whether it changes anything in its `config.mutates`.
 */

export const ROLES = ['viewer', 'operator'] as const;
export type Role = (typeof ROLES)[number];

/** Who a request was authenticated as. */
export interface Principal {
  readonly name: string;
  readonly role: Role;
  readonly via: 'password' | 'token' | 'jwt';
}

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

export function mayCall(role: Role, route: { readonly mutates?: boolean }): boolean {
  return role === 'operator' || route.mutates !== true;
}
