import { DashboardRoles, type DashboardRole } from '@dzpay/accounts';

/**
 * Who may change whom in a team, beyond the permission table (which lets only owners and
 * admins reach the team's forms at all). Pure: the adapter (dashboard-users.ts) asks
 * changeCheck inside its transaction, against the team's rows as locked there, so a change
 * made since the page was read (the target promoted to owner, the actor demoted or
 * disabled) is judged on what is true; the last-owner rule, which needs the whole team at
 * once, is the adapter's too.
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

/** A member as read under the team's lock (dashboard-users.ts TeamMember). */
interface LockedMember extends Member {
  enabled: boolean;
}

/**
 * changeRefusal as the adapter asks it under the lock: the actor is reread there too, and
 * one who is no longer in the team or was disabled since their page was read manages
 * nothing.
 */
export function changeCheck(change: TeamChange) {
  return (actor: LockedMember | null, target: LockedMember): TeamRefusal | null =>
    actor?.enabled ? changeRefusal(actor, target, change) : 'not-manager';
}
