/**
 * What dzpay's own recent calls say of a card network, so a registration can answer
 * CARDNET502 without calling it: registrations no longer talk to the network (its order
 * is registered when the payer opens the checkout), yet a merchant must still learn, at
 * once and before sending payers, that nobody can pay now. Down from a failure that says
 * the network itself is out (unreachable, timing out, refusing dzpay's credentials)
 * until a call succeeds or `downMs` passes without another such failure; a network that
 * is not configured at all is always down. Pure: the clock is an argument.
 */
export interface NetworkHealth {
  isDown(now: number): boolean;
  failed(now: number): void;
  succeeded(): void;
}

export function networkHealth(options: { downMs: number; configured: boolean }): NetworkHealth {
  let downUntil = -Infinity;
  return {
    isDown: (now) => !options.configured || now < downUntil,
    failed: (now) => {
      downUntil = now + options.downMs;
    },
    succeeded: () => {
      downUntil = -Infinity;
    },
  };
}
