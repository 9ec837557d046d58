import type { DashboardRole } from '@dzpay/accounts';
import type { Language, Mode } from '@dzpay/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from './settings.ts';

// The contract between the dashboard's core (sessions, layout, languages: dashboard/*.ts)
// and its pages (dashboard/pages/*.ts). The core implements it; pages only use it. The
// pages reachable without a session (sign-in, invitations, password reset) register on
// the core's Fastify scope instead, with its public layout and form tokens.

/** Who is signed in, and what they are looking at. */
export interface DashboardSession {
  id: string;
  userId: string;
  email: string;
  merchantId: string;
  merchantName: string;
  /** The data shown: test or live, switched in the header. */
  mode: Mode;
  language: Language;
  /** Goes in every form as the hidden field `_csrf`. */
  csrfToken: string;
  /**
   * What the user may do (permissions.ts), as Postgres says on this request. Always set
   * by the core; optional only so that stand-ins of the core in tests may leave it out.
   */
  role?: DashboardRole;
}

/** What a page handler gets: the session, its scope, and the core's helpers. */
export interface PageContext {
  request: FastifyRequest;
  reply: FastifyReply;
  session: DashboardSession;
  /** The merchant and mode every backend call must be scoped to. */
  scope: { merchantId: string; mode: Mode };
  language: Language;
  /** Escapes text for HTML. */
  escape: (text: string) => string;
  /** A whole page in the dashboard layout (navigation, language and mode switches, RTL for ar). */
  page: (title: string, bodyHtml: string) => string;
  /** `<input type="hidden" name="_csrf" …>` for this session. */
  csrfField: () => string;
  /** A one-time notice shown on the next page (after a redirect). */
  flash: (kind: 'ok' | 'error', text: string) => Promise<void>;
  /**
   * Whether the user's role may use a method and a path (permissions.ts): pages show only
   * the forms and links that would be let through. The core refuses the rest anyway (403),
   * whatever a page shows. Always set by the core; stand-ins may leave it out (all shown).
   */
  allows?: (method: 'GET' | 'POST', path: string) => boolean;
}

export type PageHandler = (context: PageContext) => Promise<string | void>;

/** What the core hands each group of pages. */
export interface PageKit {
  deps: DashboardDeps;
  /** A GET page behind a session. The handler answers HTML, or redirects with context.reply. */
  get: (path: string, handler: PageHandler) => void;
  /** A form POST behind a session and the CSRF check (form fields in request.body). */
  post: (path: string, handler: PageHandler) => void;
  /** A download behind a session (the handler sends its own body and content type). */
  download: (path: string, handler: (context: PageContext) => Promise<void>) => void;
  app: FastifyInstance;
}
