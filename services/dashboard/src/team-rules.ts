import { DashboardRoles, type DashboardRole } from '@dzpay/accounts';

/**
 * Who may change whom in a team, beyond the permission table (which lets only owners and
 * admins reach the team's forms at all). Pure: the pages ask it before writing, and the
 * last-owner rule, which needs the whole team at once, is the adapter's
 * (dashboard-users.ts, under a lock).
 */

export type TeamRefusal = 'not-manager' | 'self' | 'owner-only';

export type TeamChange =
  { kind: 'role'; to: DashboardRole } | { kind: 'disable' } | { kind: 'enable' };

interface Member {
  id: string;
  role: DashboardRole;
}

const manages = (role: DashboardRole) => role === 'owner' || role === 'admin';

/** The roles someone may give, on an invitation or a role change: an admin never makes owners. */
export function grantableRoles(actor: DashboardRole): readonly DashboardRole[] {
  if (actor === 'owner') return DashboardRoles;
  if (actor === 'admin') return DashboardRoles.filter((role) => role !== 'owner');
  return [];
}

/** Why an invitation with this role is refused, or null. */
export function inviteRefusal(actor: DashboardRole, role: DashboardRole): TeamRefusal | null {
  if (!manages(actor)) return 'not-manager';
  return grantableRoles(actor).includes(role) ? null : 'owner-only';
}

/** Why revoking an invitation of this role is refused, or null: an owner's is an owner's. */
export function revokeRefusal(actor: DashboardRole, role: DashboardRole): TeamRefusal | null {
  if (!manages(actor)) return 'not-manager';
  return role === 'owner' && actor !== 'owner' ? 'owner-only' : null;
}

/**
 * Why a change of a colleague is refused, or null. Nobody changes their own role or
 * disables themselves (a team would lock itself out one click at a time); an admin
 * touches no owner and makes none.
 */
export function changeRefusal(
  actor: Member,
  target: Member,
  change: TeamChange,
): TeamRefusal | null {
  if (!manages(actor.role)) return 'not-manager';
  if (actor.id === target.id) return 'self';
  if (actor.role !== 'owner' && target.role === 'owner') return 'owner-only';
  if (change.kind === 'role' && !grantableRoles(actor.role).includes(change.to))
    return 'owner-only';
  return null;
}
