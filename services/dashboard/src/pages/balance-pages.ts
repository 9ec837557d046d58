import { algiersMonth, PAYOUTS_PAGE_DEFAULT, Rpc } from '@dzpay/contracts';
import { escapeHtml as e, isAppError } from '@dzpay/platform';
import { DashboardPaths } from '../navigation.ts';
import type { PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { BalanceMessages } from './balance-messages.ts';
import { balancePageHtml, rangeFormHtml, recentMonths } from './balance-view.ts';
import { dayRangeOf } from './day-range.ts';
import { fieldOf } from './form.ts';
import { pageLinks } from './pagination.ts';
import { refusalText } from './refusal.ts';
import { sendStatement } from './statement-download.ts';

/** Statements offered on the page: this month and the eleven before. */
const STATEMENT_MONTHS = 12;

/** The balance, payouts and monthly statements (docs/balance.md). Read-only: no form posts. */
export function registerBalancePages(kit: PageKit, ask: Ask): void {
  const now = () => kit.deps.clock?.() ?? new Date();

  kit.download(`${DashboardPaths.balance}/statement`, (context) =>
    sendStatement(context, ask, now()),
  );

  kit.get(DashboardPaths.balance, async (context) => {
    const t = BalanceMessages[context.language];
    const { query, range } = dayRangeOf(context, now());
    if (!range) {
      context.reply.code(400);
      return context.page(
        t.title,
        `${rangeFormHtml(t, query)}<p class="flash error" role="alert">${e(t.invalidRange)}</p>`,
      );
    }
    const cursor = fieldOf(context.request.query, 'cursor');
    try {
      const [balance, payouts] = await Promise.all([
        ask(Rpc.balanceGet, { ...context.scope, ...range }),
        ask(Rpc.payoutsList, {
          ...context.scope,
          limit: PAYOUTS_PAGE_DEFAULT,
          ...(cursor ? { cursor } : {}),
        }),
      ]);
      const links = pageLinks(cursor, fieldOf(context.request.query, 'back'), payouts.nextCursor);
      const months = recentMonths(algiersMonth(now()), STATEMENT_MONTHS);
      return context.page(
        t.title,
        balancePageHtml({ balance, payouts, links, months }, context.language),
      );
    } catch (error) {
      context.reply.code(isAppError(error) && error.code === 'SERVICE503_UNAVAILABLE' ? 503 : 400);
      return context.page(
        t.title,
        `${rangeFormHtml(t, range)}<p class="flash error" role="alert">${e(refusalText(error, context.language))}</p>`,
      );
    }
  });
}
