import type { DashboardRole, DashboardUser, PendingInvite } from '@dzpay/accounts';
import type { Language } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import { formatDateTime } from '../format.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import { TeamMessages } from './team-messages.ts';
import { changeRefusal, grantableRoles, revokeRefusal } from './team-rules.ts';

/** What the Team page is drawn from. */
export interface TeamView {
  language: Language;
  me: { id: string; role: DashboardRole };
  users: DashboardUser[];
  /** null: the user may not see them (not a manager). */
  invites: PendingInvite[] | null;
  /** Whether the user may invite and change colleagues (permissions.ts). */
  manages: boolean;
  csrfField: string;
}

const userPath = (id: string, action: string) =>
  `${DashboardPaths.team}/users/${encodeURIComponent(id)}/${action}`;

function roleOptions(language: Language, roles: readonly DashboardRole[], chosen: DashboardRole) {
  const t = textsOf(language);
  return roles
    .map(
      (role) =>
        `<option value="${role}"${role === chosen ? ' selected' : ''}>${e(t.roleNames[role])}</option>`,
    )
    .join('');
}

/** A colleague's actions: a role to choose and disable/enable, when the rules allow them. */
function memberActions(view: TeamView, user: DashboardUser): string {
  if (!view.manages) return '';
  const tt = TeamMessages[view.language];
  const parts: string[] = [];
  const canRole = changeRefusal(view.me, user, { kind: 'role', to: user.role }) === null;
  if (canRole) {
    parts.push(`<form class="inline" method="post" action="${userPath(user.id, 'role')}">${view.csrfField}
<label class="sr-only" for="role-${e(user.id)}">${e(tt.roleOf(user.email))}</label>
<select id="role-${e(user.id)}" name="role">${roleOptions(view.language, grantableRoles(view.me.role), user.role)}</select>
<button type="submit" class="secondary">${e(tt.changeRole)}<span class="sr-only"> ${e(user.email)}</span></button></form>`);
  }
  const toggle = user.disabledAt ? 'enable' : 'disable';
  if (changeRefusal(view.me, user, { kind: toggle }) === null) {
    parts.push(`<form class="inline" method="post" action="${userPath(user.id, toggle)}">${view.csrfField}
<button type="submit"${toggle === 'disable' ? ' class="danger"' : ''}>${e(
      toggle === 'disable' ? tt.disable : tt.enable,
    )}<span class="sr-only"> ${e(user.email)}</span></button></form>`);
  }
  return parts.length ? `<div class="actions">${parts.join('')}</div>` : '';
}

function membersHtml(view: TeamView): string {
  const t = textsOf(view.language);
  const tt = TeamMessages[view.language];
  const rows = view.users
    .map((user) => {
      const status = user.disabledAt
        ? `<span class="badge bad">${e(t.disabled)}</span>`
        : `<span class="badge ok">${e(t.active)}</span>`;
      const you = user.id === view.me.id ? ` <span class="muted">(${e(tt.you)})</span>` : '';
      return `<tr data-user-id="${e(user.id)}"><td data-label="${e(t.email)}">${e(user.email)}${you}</td>
<td data-label="${e(tt.role)}">${e(t.roleNames[user.role])}</td>
<td data-label="${e(t.created)}">${e(formatDateTime(user.createdAt, view.language))}</td>
<td data-label="${e(t.status)}">${status}</td>${
        view.manages ? `<td data-label="${e(t.actions)}">${memberActions(view, user)}</td>` : ''
      }</tr>`;
    })
    .join('');
  const actionsHead = view.manages ? `<th scope="col">${e(t.actions)}</th>` : '';
  return `<section class="card" aria-labelledby="members"><h2 id="members">${e(t.teamTitle)}</h2>
<p class="muted">${e(t.teamIntro)}</p>
<p>${e(tt.yourRole)} <strong id="my-role">${e(t.roleNames[view.me.role])}</strong></p>
<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${e(t.email)}</th><th scope="col">${e(
    tt.role,
  )}</th><th scope="col">${e(t.created)}</th><th scope="col">${e(t.status)}</th>${actionsHead}</tr></thead><tbody>${rows}</tbody></table></div>
<p class="muted">${e(tt.roleHelp)}</p></section>`;
}

function invitesHtml(view: TeamView): string {
  if (!view.invites) return '';
  const t = textsOf(view.language);
  const tt = TeamMessages[view.language];
  const rows = view.invites
    .map((invite) => {
      const revoke =
        revokeRefusal(view.me.role, invite.role) === null
          ? `<form class="inline" method="post" action="${DashboardPaths.team}/invites/${encodeURIComponent(invite.id)}/revoke">${view.csrfField}
<button type="submit" class="danger">${e(tt.revokeInvite)}<span class="sr-only"> ${e(invite.email)}</span></button></form>`
          : '';
      return `<tr data-invite-id="${e(invite.id)}"><td data-label="${e(t.email)}">${e(invite.email)}</td>
<td data-label="${e(tt.role)}">${e(t.roleNames[invite.role])}</td>
<td data-label="${e(tt.expires)}">${e(formatDateTime(invite.expiresAt, view.language))}</td>
<td data-label="${e(t.actions)}">${revoke}</td></tr>`;
    })
    .join('');
  const body = view.invites.length
    ? `<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${e(t.email)}</th><th scope="col">${e(
        tt.role,
      )}</th><th scope="col">${e(tt.expires)}</th><th scope="col">${e(t.actions)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p>${e(tt.noPending)}</p>`;
  return `<section class="card" aria-labelledby="pending"><h2 id="pending">${e(tt.pendingTitle)}</h2>${body}</section>`;
}

function inviteFormHtml(view: TeamView): string {
  if (!view.manages) return '';
  const t = textsOf(view.language);
  const tt = TeamMessages[view.language];
  // The least a colleague may do is preselected: more is a choice.
  return `<section class="card" aria-labelledby="invite"><h2 id="invite">${e(t.inviteTitle)}</h2>
<p class="muted">${e(t.inviteHelp)}</p>
<form class="stack" method="post" action="${DashboardPaths.team}/invite">${view.csrfField}
<div><label for="invite-email">${e(t.email)}</label><input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" dir="ltr"></div>
<div><label for="invite-role">${e(tt.inviteRole)}</label><select id="invite-role" name="role">${roleOptions(
    view.language,
    grantableRoles(view.me.role),
    'accountant',
  )}</select></div>
<div><button type="submit">${e(t.invite)}</button></div></form></section>`;
}

/** The Team page's body: members, pending invitations, the invitation form, security. */
export function teamPageHtml(view: TeamView, top = ''): string {
  const t = textsOf(view.language);
  return `${top}${membersHtml(view)}
${invitesHtml(view)}
${inviteFormHtml(view)}
<section class="card" aria-labelledby="security"><h2 id="security">${e(t.security)}</h2>
<p class="muted">${e(t.logoutEverywhereHelp)}</p>
<form method="post" action="${DashboardPaths.logoutEverywhere}">${view.csrfField}
<button type="submit" class="danger">${e(t.logoutEverywhere)}</button></form></section>`;
}
