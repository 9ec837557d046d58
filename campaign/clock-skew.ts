// Loaded with `--import` (NODE_OPTIONS) into a service the campaign gives a skewed clock:
// its wall clock (Date) runs CAMPAIGN_CLOCK_SKEW_MS ahead of the machine's (behind when
// negative), as on a server whose time synchronisation drifted. The monotonic clock
// (performance.now) and the database's now() are untouched: only this process is wrong.
const skewMs = Number(process.env.CAMPAIGN_CLOCK_SKEW_MS ?? 0);

if (Number.isFinite(skewMs) && skewMs !== 0) {
  const RealDate = Date;
  const now = () => RealDate.now() + skewMs;
  class SkewedDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(now());
      else super(...args);
    }

    static override now(): number {
      return now();
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}
