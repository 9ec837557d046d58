import { randomBytes } from 'node:crypto';
import { cleanEmail, isDashboardRole, type DashboardRole } from '@dzpay/accounts';
import { inviteTokenHash } from './auth-pages.ts';
import { invitationLink, invitationMail } from './invitation-mail.ts';
import { recordDashboardAudit } from './audit-record.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import { TeamMessages } from './team-messages.ts';
import { changeCheck, inviteRefusal, revokeRefusal, type TeamRefusal } from './team-rules.ts';
import { teamPageHtml } from './team-views.ts';
import type { DashboardDeps } from '../settings.ts';

type Form = Record<string, unknown>;

/**
 * Who can sign in for the merchant, with which role; invitations (each with its role),
 * their revocation; role changes, disabling and enabling; "log out everywhere". Every
 * change is written to the audit log. The permission table lets only owners and admins
 * post here; team-rules.ts says what they may do to whom.
 */
export function teamPages(kit: PageKit, dash: DashboardDeps): void {
  const roleOf = (context: PageContext): DashboardRole => context.session.role ?? 'accountant';
  const managesTeam = (context: PageContext) =>
    context.allows?.('POST', `${DashboardPaths.team}/invite`) ?? false;

  const render = async (context: PageContext, top = '') => {
    const { session } = context;
    const t = textsOf(context.language);
    const manages = managesTeam(context);
    const [users, invites] = await Promise.all([
      dash.users.listOfMerchant(session.merchantId),
      manages ? dash.users.pendingInvites(session.merchantId) : Promise.resolve(null),
    ]);
    return context.page(
      t.teamTitle,
      teamPageHtml(
        {
          language: context.language,
          me: { id: session.userId, role: roleOf(context) },
          users,
          invites,
          manages,
          csrfField: context.csrfField(),
        },
        top,
      ),
    );
  };

  /** Back to the Team page with a notice (a reload never submits again). */
  const back = async (context: PageContext, kind: 'ok' | 'error', text: string) => {
    await context.flash(kind, text);
    await context.reply.redirect(DashboardPaths.team, 303);
  };

  const refusalText = (context: PageContext, refusal: TeamRefusal | 'last-owner' | 'not-found') => {
    const tt = TeamMessages[context.language];
    if (refusal === 'self') return tt.refusedSelf;
    if (refusal === 'last-owner') return tt.refusedLastOwner;
    if (refusal === 'not-found') return tt.notInTeam;
    // The page's guard let the actor in; under the lock they were no longer a manager.
    if (refusal === 'not-manager') return tt.refusedNoLonger;
    return tt.refusedOwner;
  };

  kit.get(DashboardPaths.team, (context) => render(context));

  kit.post(`${DashboardPaths.team}/invite`, async (context) => {
    const { escape: e, session } = context;
    const t = textsOf(context.language);
    const tt = TeamMessages[context.language];
    const body = context.request.body as Form;
    const email = cleanEmail(body.email);
    const error = (text: string, status: number) => {
      context.reply.code(status);
      return render(context, `<p class="flash error" role="alert">${e(text)}</p>`);
    };
    if (!email) return error(t.emailInvalid, 400);
    // A form without a role (an older page) invites with the least one.
    const role = body.role === undefined ? 'accountant' : body.role;
    if (!isDashboardRole(role)) return error(tt.refusedRole, 400);
    const refusal = inviteRefusal(roleOf(context), role);
    if (refusal) return error(refusalText(context, refusal), 403);
    // Only the merchant's own team is named. An email with an account at another
    // merchant gets an invitation like any other, and the same answer: saying otherwise
    // would tell this merchant who works elsewhere. Its link makes no account (one email,
    // one account): its acceptance is refused.
    if (await dash.users.inTeam(session.merchantId, email)) return error(t.alreadyInTeam, 409);
    const token = randomBytes(32).toString('base64url');
    const hours = dash.settings.inviteHours;
    // An invitation sent again replaces the pending one: one live link per invitee.
    const invite = await dash.users.createInvite({
      merchantId: session.merchantId,
      email,
      role,
      tokenHash: inviteTokenHash(token),
      invitedBy: session.userId,
      expiresAt: new Date(Date.now() + hours * 3600_000),
    });
    // The link goes to the invitee's mailbox only, never to this page: an account exists
    // only for someone who can read that mailbox, so nobody can take another merchant's
    // colleague's email for themselves.
    try {
      await dash.mailer.send({
        to: email,
        ...invitationMail({
          language: context.language,
          link: invitationLink(kit.deps.publicBaseUrl, token, context.language),
          inviter: session.email,
          merchantName: session.merchantName,
          role,
          hours,
        }),
      });
    } catch (err) {
      context.request.log.warn(
        { err: err instanceof Error ? err.message : String(err), merchantId: session.merchantId },
        'dashboard invitation not mailed',
      );
      await dash.users.revokeInvite(session.merchantId, invite.id);
      return error(t.inviteNotMailed, 502);
    }
    await recordDashboardAudit(dash, context, {
      action: 'team.invite',
      target: email,
      details: { role },
      withoutMode: true,
    });
    context.request.log.info({ merchantId: session.merchantId }, 'dashboard invitation mailed');
    return render(
      context,
      `<p class="flash ok" role="status">${e(t.inviteSent)} <strong>${e(email)}</strong> (${e(t.roleNames[role])})</p>`,
    );
  });

  kit.post(`${DashboardPaths.team}/invites/:id/revoke`, async (context) => {
    const { session } = context;
    const tt = TeamMessages[context.language];
    const { id } = context.request.params as { id: string };
    const pending = (await dash.users.pendingInvites(session.merchantId)).find(
      (invite) => invite.id === id,
    );
    if (!pending) return back(context, 'error', tt.notInTeam);
    const refusal = revokeRefusal(roleOf(context), pending.role);
    if (refusal) return back(context, 'error', refusalText(context, refusal));
    const revoked = await dash.users.revokeInvite(session.merchantId, id);
    if (!revoked) return back(context, 'error', tt.notInTeam);
    await recordDashboardAudit(dash, context, {
      action: 'team.invite_revoke',
      target: revoked.email,
      details: { role: revoked.role },
      withoutMode: true,
    });
    return back(context, 'ok', tt.inviteRevoked(revoked.email));
  });

  kit.post(`${DashboardPaths.team}/users/:id/role`, async (context) => {
    const { session } = context;
    const t = textsOf(context.language);
    const tt = TeamMessages[context.language];
    const { id } = context.request.params as { id: string };
    const role = (context.request.body as Form).role;
    if (!isDashboardRole(role)) return back(context, 'error', tt.refusedRole);
    // The rules are asked under the team's lock, against the actor and the target as they
    // are at that moment (both may have changed since this request's session was read).
    const changed = await dash.users.setRole(
      session.merchantId,
      session.userId,
      id,
      role,
      changeCheck({ kind: 'role', to: role }),
    );
    if ('problem' in changed) return back(context, 'error', refusalText(context, changed.problem));
    if (changed.previous !== role) {
      await recordDashboardAudit(dash, context, {
        action: 'team.role_change',
        target: changed.user.email,
        details: {
          from: changed.previous,
          to: role,
          ...revokedCounts(changed),
        },
        withoutMode: true,
      });
    }
    return back(context, 'ok', tt.roleChanged(changed.user.email, t.roleNames[role]));
  });

  for (const toggle of ['disable', 'enable'] as const) {
    kit.post(`${DashboardPaths.team}/users/:id/${toggle}`, async (context) => {
      const { session } = context;
      const tt = TeamMessages[context.language];
      const { id } = context.request.params as { id: string };
      const changed = await dash.users.setDisabled(
        session.merchantId,
        session.userId,
        id,
        toggle === 'disable',
        changeCheck({ kind: toggle }),
      );
      if ('problem' in changed)
        return back(context, 'error', refusalText(context, changed.problem));
      // Signed out at once: their sessions go now (each request also rereads the user,
      // so one racing this line is refused anyway).
      if (toggle === 'disable') await dash.sessions.destroyAllOf(id);
      if (changed.wasDisabled !== (toggle === 'disable')) {
        await recordDashboardAudit(dash, context, {
          action: toggle === 'disable' ? 'team.user_disable' : 'team.user_enable',
          target: changed.user.email,
          details: {
            role: changed.user.role,
            ...revokedCounts(changed),
          },
          withoutMode: true,
        });
      }
      const email = changed.user.email;
      return back(
        context,
        'ok',
        toggle === 'disable' ? tt.userDisabled(email) : tt.userEnabled(email),
      );
    });
  }
}

/** What a team change revoked with it, for its audit event (only what it did). */
function revokedCounts(changed: { invitesRevoked: number; keysRevoked: number }) {
  return {
    ...(changed.invitesRevoked ? { invitesRevoked: changed.invitesRevoked } : {}),
    ...(changed.keysRevoked ? { keysRevoked: changed.keysRevoked } : {}),
  };
}
