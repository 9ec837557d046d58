import type { Params } from '../domain/bpc-errors.ts';
import { parseLastOrdersQuery, selectOrders } from '../domain/last-orders.ts';
import type { OrderBook } from '../order-book.ts';
import { statusBody, type StatusVersion } from './status-body.ts';

export interface LastOrdersDeps {
  book: OrderBook;
  clock: () => Date;
  statusVersion: StatusVersion;
  merchantLogin: string;
  timeZone: string;
}

/**
 * getLastOrdersForMerchants.do, once the credentials passed: a page of orders, each as
 * getOrderStatusExtended.do describes it (its gateway id in `attributes`, mdOrder),
 * with the total count, as a reconciliation walks them.
 */
export function lastOrdersHandler(deps: LastOrdersDeps): (params: Params) => object {
  return (params) => {
    const query = parseLastOrdersQuery(params, deps.timeZone);
    if (!query.ok) return query.error;
    const { orders, totalCount } = selectOrders(
      deps.book.all(deps.clock()),
      query.value,
      deps.merchantLogin,
    );
    return {
      errorCode: '0',
      errorMessage: 'Success',
      orderStatuses: orders.map((order) =>
        statusBody(order, query.value.language ?? order.language, deps.statusVersion),
      ),
      totalCount,
      page: query.value.page,
      pageSize: query.value.size,
    };
  };
}
