import { randomBytes } from 'node:crypto';
import { DashboardPaths } from './navigation.ts';
import { formatDateTime } from './format.ts';
import { textsOf } from './messages.ts';
import type { PageContext, PageKit } from './page-kit.ts';
import { inviteTokenHash } from './auth-pages.ts';
import { cleanEmail } from '@dzpay/accounts';
import type { DashboardDeps } from './settings.ts';

type Form = Record<string, unknown>;

/** Who can sign in for the merchant, invitations, and "log out everywhere". */
export function teamPages(kit: PageKit, dash: DashboardDeps): void {
  const render = async (context: PageContext, notice = '') => {
    const { escape: e, session } = context;
    const t = textsOf(context.language);
    const users = await dash.users.listOfMerchant(session.merchantId);
    const rows = users
      .map(
        (user) => `<tr><td data-label="${e(t.email)}">${e(user.email)}</td>
<td data-label="${e(t.created)}">${e(formatDateTime(user.createdAt, context.language))}</td>
<td data-label="${e(t.status)}">${
          user.disabledAt
            ? `<span class="badge bad">${e(t.disabled)}</span>`
            : `<span class="badge ok">${e(t.active)}</span>`
        }</td></tr>`,
      )
      .join('');
    return context.page(
      t.teamTitle,
      `${notice}<section class="card" aria-labelledby="members"><h2 id="members">${e(t.teamTitle)}</h2>
<p class="muted">${e(t.teamIntro)}</p>
<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${e(t.email)}</th><th scope="col">${e(
        t.created,
      )}</th><th scope="col">${e(t.status)}</th></tr></thead><tbody>${rows}</tbody></table></div></section>
<section class="card" aria-labelledby="invite"><h2 id="invite">${e(t.inviteTitle)}</h2>
<p class="muted">${e(t.inviteHelp)}</p>
<form class="stack" method="post" action="${DashboardPaths.team}/invite">${context.csrfField()}
<div><label for="invite-email">${e(t.email)}</label><input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off"></div>
<div><button type="submit">${e(t.invite)}</button></div></form></section>
<section class="card" aria-labelledby="security"><h2 id="security">${e(t.security)}</h2>
<p class="muted">${e(t.logoutEverywhereHelp)}</p>
<form method="post" action="${DashboardPaths.logoutEverywhere}">${context.csrfField()}
<button type="submit" class="danger">${e(t.logoutEverywhere)}</button></form></section>`,
    );
  };

  kit.get(DashboardPaths.team, (context) => render(context));

  kit.post(`${DashboardPaths.team}/invite`, async (context) => {
    const { escape: e, session } = context;
    const t = textsOf(context.language);
    const email = cleanEmail((context.request.body as Form).email);
    const error = (text: string, status: number) => {
      context.reply.code(status);
      return render(context, `<p class="flash error" role="alert">${e(text)}</p>`);
    };
    if (!email) return error(t.emailInvalid, 400);
    // Only the merchant's own team is named. An email with an account at another
    // merchant gets a link like any other, and the same answer: saying otherwise would
    // tell this merchant who works elsewhere. That link makes no account (one email, one
    // account): its acceptance is refused.
    if (await dash.users.inTeam(session.merchantId, email)) return error(t.alreadyInTeam, 409);
    const token = randomBytes(32).toString('base64url');
    await dash.users.createInvite({
      merchantId: session.merchantId,
      email,
      tokenHash: inviteTokenHash(token),
      invitedBy: session.userId,
      expiresAt: new Date(Date.now() + dash.settings.inviteHours * 3600_000),
    });
    const link = `${kit.deps.publicBaseUrl}${DashboardPaths.invite}/${token}`;
    context.request.log.info({ merchantId: session.merchantId }, 'dashboard invitation created');
    // Shown once, here: only its hash is stored. dzpay sends no email for it.
    return render(
      context,
      `<section class="card" aria-labelledby="link"><h2 id="link">${e(t.inviteLink)}</h2>
<p role="status">${e(t.inviteCreated)} <strong>${e(email)}</strong></p>
<p class="muted">${e(t.inviteHelp)}</p><code class="secret" id="invite-link">${e(link)}</code></section>`,
    );
  });
}
