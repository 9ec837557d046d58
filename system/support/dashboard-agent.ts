import { hashPassword, dashboardUsers, type DashboardRole } from '@dzpay/accounts';
import type { Stack } from './stack.ts';

/**
 * The session cookie's name in the stacks of the system tests: their cookies are Secure
 * (the default), so the name carries the `__Host-` prefix.
 */
export const SESSION_COOKIE = '__Host-dzpay_dashboard';

export interface PageAnswer {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

/**
 * A browser without a browser, for the dashboard's service tests: keeps cookies (it
 * ignores Secure, as any non-browser client does), follows nothing by itself, and
 * reads the CSRF token from the last page.
 */
export class DashboardAgent {
  readonly cookies = new Map<string, string>();
  lastHtml = '';
  readonly baseUrl: string;
  readonly headers: Record<string, string>;
  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    this.baseUrl = baseUrl;
    this.headers = headers;
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return {
      cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    };
  }

  private async answer(response: Response): Promise<PageAnswer> {
    this.remember(response);
    const html = await response.text();
    if (response.headers.get('content-type')?.includes('text/html')) this.lastHtml = html;
    return {
      status: response.status,
      html,
      headers: response.headers,
      location: response.headers.get('location'),
    };
  }

  async get(path: string): Promise<PageAnswer> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      headers: { ...this.headers, ...this.cookieHeader() },
      redirect: 'manual',
    });
    return this.answer(response);
  }

  /** Posts a form; `_csrf` is the last page's unless the fields say otherwise. */
  async post(path: string, fields: Record<string, string>): Promise<PageAnswer> {
    const body = new URLSearchParams({ _csrf: this.csrf() ?? '', ...fields });
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        ...this.headers,
        ...this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: body.toString(),
      redirect: 'manual',
    });
    return this.answer(response);
  }

  csrf(): string | undefined {
    return /name="_csrf" value="([^"]+)"/.exec(this.lastHtml)?.[1];
  }

  async login(email: string, password: string): Promise<PageAnswer> {
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { email, password });
  }
}

/** A dashboard user of a merchant, made the way the CLI makes one (an owner unless said). */
export async function createDashboardUser(
  stack: Stack,
  merchantId: string,
  email: string,
  password: string,
  role?: DashboardRole,
): Promise<string> {
  const users = dashboardUsers(stack.gateway.runtime.sql);
  const created = await users.create(merchantId, email, await hashPassword(password), role);
  if ('problem' in created) throw new Error(`user not created: ${created.problem}`);
  return created.user.id;
}

export function textOf(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];
}

/**
 * The invitation link of the last email the stack's dashboard sent to this address, as a
 * path of the dashboard (`/dashboard/invite/<token>?lang=…`): the invitee's mailbox is
 * the only place it is shown. Undefined when no invitation reached that address.
 */
export function invitationPathFor(stack: Stack, address: string): string | undefined {
  const mails = stack.dashboardMail?.messages ?? [];
  const last = mails
    .filter(
      (mail) =>
        mail.to && 'text' in mail.to && mail.to.text.toLowerCase() === address.toLowerCase(),
    )
    .at(-1);
  const found = /https?:\/\/\S+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\?lang=\w+/.exec(
    last?.text ?? '',
  );
  if (!found) return undefined;
  const url = new URL(found[0]);
  return `${url.pathname}${url.search}`;
}
