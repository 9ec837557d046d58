import formbody from '@fastify/formbody';
import type { Language, RpcDefinition } from '@dzpay/contracts';
import { AppError, escapeHtml } from '@dzpay/platform';
import Fastify, { type FastifyInstance } from 'fastify';
import type { PageContext, PageKit } from '../src/page-kit.ts';
import type { Ask } from '../src/pages/ask.ts';
import type { DashboardDeps } from '../src/settings.ts';

/**
 * Pages over a stand-in of the dashboard's core (a fixed session, a bare layout) and of
 * NATS (answers by subject): what each page asks, what it shows and what it flashes.
 */

export const MERCHANT = '0f6f7d1e-2a3b-4c5d-8e9f-a0b1c2d3e4f5';
export const USER = '4c2f7a10-0b1c-4d2e-8f3a-5b6c7d8e9f00';

export type Handler = (request: Record<string, unknown>) => unknown;

export interface PagesHarness {
  app: FastifyInstance;
  asked: { subject: string; request: Record<string, unknown> }[];
  flashes: { kind: string; text: string }[];
}

let opened: FastifyInstance | undefined;

/** Closes the app the last harness opened: each test's afterEach. */
export async function closePages(): Promise<void> {
  await opened?.close();
  opened = undefined;
}

export async function pagesHarness(options: {
  language: Language;
  /** NATS's answers, by subject; a subject without one is unavailable. */
  answers: Record<string, Handler>;
  /** What the pages read of the dashboard's dependencies. */
  deps: object;
  register: (kit: PageKit, ask: Ask) => void;
  /** How the session's user is let through; every form and page when not said. */
  allows?: PageContext['allows'];
  /** The layout's escaping of what pages hand it; escapeHtml when not said. */
  escape?: (text: string) => string;
}): Promise<PagesHarness> {
  const { language, answers } = options;
  const app = Fastify();
  opened = app;
  await app.register(formbody);
  const asked: PagesHarness['asked'] = [];
  const flashes: PagesHarness['flashes'] = [];
  const ask: Ask = (definition: RpcDefinition, request) => {
    asked.push({ subject: definition.subject, request: request as Record<string, unknown> });
    const answer = answers[definition.subject];
    // Answered as requestRpc answers: a refusal is a rejected promise.
    return new Promise((resolve) => {
      if (!answer)
        throw new AppError('SERVICE503_UNAVAILABLE', `no answer for ${definition.subject}`);
      resolve(answer(request as Record<string, unknown>) as never);
    });
  };
  const context = (request: PageContext['request'], reply: PageContext['reply']): PageContext => ({
    request,
    reply,
    session: {
      id: 's',
      userId: USER,
      email: 'owner@example.dz',
      merchantId: MERCHANT,
      merchantName: 'Librairie',
      mode: 'test',
      language,
      csrfToken: 'tok',
    },
    scope: { merchantId: MERCHANT, mode: 'test' },
    language,
    escape: options.escape ?? escapeHtml,
    page: (title, body) =>
      `<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}"><h1>${escapeHtml(title)}</h1>${body}</html>`,
    csrfField: () => '<input type="hidden" name="_csrf" value="tok">',
    flash: (kind, text) => {
      flashes.push({ kind, text });
      return Promise.resolve();
    },
    ...(options.allows ? { allows: options.allows } : {}),
  });
  const served =
    (handler: (c: PageContext) => Promise<string | void>) =>
    async (request: PageContext['request'], reply: PageContext['reply']) => {
      const html = await handler(context(request, reply));
      if (typeof html === 'string' && !reply.sent) return reply.type('text/html').send(html);
      return reply;
    };
  const kit: PageKit = {
    deps: options.deps as DashboardDeps,
    app,
    get: (path, handler) => void app.get(path, served(handler)),
    post: (path, handler) => void app.post(path, served(handler)),
    download: (path, handler) =>
      void app.get(
        path,
        served(async (c) => void (await handler(c))),
      ),
  };
  options.register(kit, ask);
  return { app, asked, flashes };
}
