import { describe, expect, it } from 'vitest';
import {
  changeCheck,
  changeRefusal,
  grantableRoles,
  inviteRefusal,
  revokeRefusal,
} from '../src/pages/team-rules.ts';

// What an owner or an admin may do to whom in their team (the permission table already
// keeps developers and accountants away from these forms).

const owner = { id: 'o', role: 'owner' as const };
const otherOwner = { id: 'o2', role: 'owner' as const };
const admin = { id: 'a', role: 'admin' as const };
const developer = { id: 'd', role: 'developer' as const };
const accountant = { id: 'c', role: 'accountant' as const };

describe('the team rules', () => {
  it('let an owner give every role, an admin every role but owner, the others none', () => {
    expect(grantableRoles('owner')).toEqual(['owner', 'admin', 'developer', 'accountant']);
    expect(grantableRoles('admin')).toEqual(['admin', 'developer', 'accountant']);
    expect(grantableRoles('developer')).toEqual([]);
    expect(grantableRoles('accountant')).toEqual([]);
  });

  it('let nobody change their own role or disable themselves', () => {
    for (const me of [owner, admin]) {
      expect(changeRefusal(me, me, { kind: 'role', to: 'accountant' })).toBe('self');
      expect(changeRefusal(me, me, { kind: 'disable' })).toBe('self');
    }
  });

  it('keep owners out of an admin’s reach: no change, no disabling, no promotion, no invitation', () => {
    expect(changeRefusal(admin, owner, { kind: 'role', to: 'admin' })).toBe('owner-only');
    expect(changeRefusal(admin, owner, { kind: 'disable' })).toBe('owner-only');
    expect(changeRefusal(admin, owner, { kind: 'enable' })).toBe('owner-only');
    expect(changeRefusal(admin, developer, { kind: 'role', to: 'owner' })).toBe('owner-only');
    expect(inviteRefusal('admin', 'owner')).toBe('owner-only');
    expect(revokeRefusal('admin', 'owner')).toBe('owner-only');
    expect(changeRefusal(admin, developer, { kind: 'role', to: 'accountant' })).toBeNull();
    expect(changeRefusal(admin, accountant, { kind: 'disable' })).toBeNull();
    expect(changeRefusal(admin, { id: 'a2', role: 'admin' }, { kind: 'disable' })).toBeNull();
    expect(inviteRefusal('admin', 'developer')).toBeNull();
  });

  it('let an owner change another owner', () => {
    expect(changeRefusal(owner, otherOwner, { kind: 'role', to: 'admin' })).toBeNull();
    expect(changeRefusal(owner, otherOwner, { kind: 'disable' })).toBeNull();
    expect(inviteRefusal('owner', 'owner')).toBeNull();
  });

  it('refuse everything to developers and accountants', () => {
    for (const me of [developer, accountant]) {
      expect(changeRefusal(me, { id: 'x', role: 'accountant' }, { kind: 'disable' })).toBe(
        'not-manager',
      );
      expect(inviteRefusal(me.role, 'accountant')).toBe('not-manager');
      expect(revokeRefusal(me.role, 'accountant')).toBe('not-manager');
    }
  });

  it('under the lock, judge the actor as reread there: gone or disabled, they manage nothing', () => {
    const now = (member: { id: string; role: 'owner' | 'admin' | 'developer' | 'accountant' }) => ({
      ...member,
      enabled: true,
    });
    const demote = changeCheck({ kind: 'role', to: 'developer' });
    expect(demote(now(admin), now({ id: 't', role: 'admin' }))).toBeNull();
    // The target became an owner since the admin's page read it.
    expect(demote(now(admin), now({ id: 't', role: 'owner' }))).toBe('owner-only');
    expect(demote({ ...admin, enabled: false }, now(developer))).toBe('not-manager');
    expect(demote(null, now(developer))).toBe('not-manager');
    expect(demote(now({ ...admin, role: 'accountant' }), now(developer))).toBe('not-manager');
    // A disabled target can still be enabled.
    expect(changeCheck({ kind: 'enable' })(now(owner), { ...admin, enabled: false })).toBeNull();
  });
});
