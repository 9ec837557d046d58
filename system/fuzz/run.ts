import fc from 'fast-check';
import { fuzzClient, type Answer, type FuzzRequest } from './http.ts';
import { describeAnswer, problemsOf } from './judge.ts';
import { pendingFixFor } from './pending.ts';
import {
  requestArbitrary,
  routeLabel,
  type OpenApiDocument,
  type RouteTarget,
} from './requests.ts';
import type { World } from './world.ts';

/** The part of the gateway's prom-client registry read here. */
interface MetricsRegistry {
  getSingleMetric(name: string): { get(): Promise<unknown> } | undefined;
}

/** One series of a prom-client histogram, as metric.get() lists it. */
interface HistogramValue {
  metricName?: string;
  labels: Record<string, string | number | undefined>;
  value: number;
}

export interface FuzzOptions {
  baseUrl: string;
  document: OpenApiDocument;
  routes: readonly RouteTarget[];
  world: World;
  seed: number;
  requests: number;
  /** An answer later than this is a hang. */
  timeoutMs: number;
  /** fast-check's replay path of a reported failure (with its seed). */
  path?: string;
  /** Requests spent shrinking a failure before the smallest one found so far is reported. */
  shrinkBudget?: number;
  /**
   * Record failures and carry on instead of stopping at the first and shrinking it:
   * for a survey of everything that breaks (the first 50 are kept, by kind).
   */
  keepGoing?: boolean;
  /** The gateway's metrics: which routes answered, counted by the server itself. */
  registry?: MetricsRegistry;
  onProgress?: (stats: FuzzStats) => void;
}

interface FuzzStats {
  sent: number;
  /** Answers by status class (2xx...5xx), and `hang` and `no-answer`. */
  byClass: Record<string, number>;
  /** Requests by the route they were aimed at. */
  byRoute: Record<string, number>;
  atLeast500: number;
  /** Of those, the ones a reported, not yet fixed bug explains (pending.ts). */
  atLeast500Pending: number;
  hangs: number;
  /** Requests whose answer broke a property (with keepGoing, all of them; else the first and its shrinking). */
  failed: number;
  /** Failures explained by a reported, not yet fixed bug (pending.ts), by its id. */
  pendingFixes: Record<string, number>;
  withValidKey: number;
  /** Routes that answered, as the gateway's request metrics count them. */
  routesAnswered: string[];
  /** Registered routes no request reached. */
  routesMissed: string[];
  /** The first failures seen (before shrinking), for the log, with the requests just before. */
  failures: { request: FuzzRequest; answer: string; problems: string[]; before: string[] }[];
  /** The slowest answers: milliseconds and the request, for spotting near-hangs. */
  slowest: { ms: number; request: string }[];
}

export interface FuzzResult {
  stats: FuzzStats;
  /** fast-check's report of the shrunk counterexample, seed and path; null when all passed. */
  failure: string | null;
  seed: number;
}

/**
 * Sends `requests` generated requests, one at a time, checking the properties of each
 * answer; on a failure fast-check shrinks it (within the budget) and the result carries
 * its report, with the seed and path that replay it.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const client = fuzzClient(options.baseUrl, options.timeoutMs);
  const before = options.registry
    ? await answeredRoutes(options.registry)
    : new Map<string, number>();
  const stats: FuzzStats = {
    sent: 0,
    byClass: {},
    byRoute: {},
    atLeast500: 0,
    atLeast500Pending: 0,
    hangs: 0,
    failed: 0,
    pendingFixes: {},
    withValidKey: 0,
    routesAnswered: [],
    routesMissed: [],
    failures: [],
    slowest: [],
  };
  const recent: string[] = [];
  const budget = options.shrinkBudget ?? 300;
  let shrinkRuns = -1;
  const property = fc.asyncProperty(
    requestArbitrary(options.routes, options.document, options.world),
    async (request) => {
      if (shrinkRuns >= 0 && ++shrinkRuns > budget) return true;
      const answer = await client.send(request);
      record(stats, request, answer, options.world.keys.test);
      const line = summarize(request);
      if (answer.ms > (stats.slowest.at(-1)?.ms ?? 0) || stats.slowest.length < 5) {
        stats.slowest = [...stats.slowest, { ms: answer.ms, request: line }]
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 5);
      }
      recent.push(line);
      if (recent.length > 4) recent.shift();
      const problems = problemsOf(request, answer);
      const pending = problems.length > 0 ? pendingFixFor(request, answer) : undefined;
      if (pending) {
        stats.pendingFixes[pending.id] = (stats.pendingFixes[pending.id] ?? 0) + 1;
        if (answer.kind === 'answer' && answer.status >= 500) stats.atLeast500Pending++;
      }
      if (problems.length === 0 || pending) {
        if (stats.sent % 500 === 0) options.onProgress?.(stats);
        return true;
      }
      const alive = await stillUp(options.baseUrl);
      stats.failed++;
      if (stats.failures.length < (options.keepGoing ? 50 : 20)) {
        stats.failures.push({
          request,
          answer: describeAnswer(answer),
          problems,
          before: recent.slice(0, -1),
        });
      }
      if (options.keepGoing) return true;
      if (shrinkRuns < 0) shrinkRuns = 0;
      throw new Error(
        `${problems.join('; ')}${alive ? '' : '; the gateway no longer answers'} — ${describeAnswer(answer)}`,
      );
    },
  );
  try {
    const details = await fc.check(property, {
      seed: options.seed,
      numRuns: options.requests,
      ...(options.path ? { path: options.path } : {}),
    });
    if (options.registry) {
      const after = await answeredRoutes(options.registry);
      stats.routesAnswered = [...after]
        .filter(([route, count]) => count > (before.get(route) ?? 0))
        .map(([route]) => route)
        .sort();
    }
    const answered = new Set(stats.routesAnswered);
    stats.routesMissed = options.routes
      .map(routeLabel)
      .filter((route) => !answered.has(route))
      .sort();
    return {
      stats,
      failure: details.failed ? failureReport(details) : null,
      seed: options.seed,
    };
  } finally {
    client.close();
  }
}

function record(stats: FuzzStats, request: FuzzRequest, answer: Answer, validKey: string) {
  stats.sent++;
  const statusClass =
    answer.kind === 'answer' ? `${Math.floor(answer.status / 100)}xx` : answer.kind;
  stats.byClass[statusClass] = (stats.byClass[statusClass] ?? 0) + 1;
  stats.byRoute[request.route] = (stats.byRoute[request.route] ?? 0) + 1;
  if (answer.kind === 'answer' && answer.status >= 500) stats.atLeast500++;
  if (answer.kind === 'hang') stats.hangs++;
  if (request.headers.some(([name, value]) => name === 'x-api-key' && value === validKey)) {
    stats.withValidKey++;
  }
}

/** Whether the gateway still answers a trivial request. */
async function stillUp(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/favicon.ico`, { signal: AbortSignal.timeout(5_000) });
    return response.status === 204;
  } catch {
    return false;
  }
}

/** Requests answered per route ("METHOD /pattern"), from the gateway's request histogram. */
async function answeredRoutes(registry: MetricsRegistry): Promise<Map<string, number>> {
  const metric = registry.getSingleMetric('dzpay_http_request_duration_seconds');
  const counts = new Map<string, number>();
  if (!metric) return counts;
  const { values } = (await metric.get()) as { values: HistogramValue[] };
  for (const value of values) {
    if (!value.metricName?.endsWith('_count')) continue;
    const { method, route } = value.labels as { method?: string; route?: string };
    if (!route || route === 'unmatched') continue;
    const label = `${method} ${route}`;
    counts.set(label, (counts.get(label) ?? 0) + value.value);
  }
  return counts;
}

/** fast-check's report (seed, path, shrunk counterexample) and what the answer broke. */
function failureReport(details: fc.RunDetails<[FuzzRequest]>): string {
  const error = details.errorInstance;
  const why = error instanceof Error ? error.message : String(error);
  return `${fc.defaultReportMessage(details) ?? 'property failed'}\nWhat broke: ${why}`;
}

/** A request in one line of at most 300 characters. */
function summarize(request: FuzzRequest): string {
  const body = request.body
    ? 'repeat' in request.body
      ? ` body ${request.body.repeat.slice(0, 10)}×${request.body.times}`
      : ` body ${JSON.stringify(request.body).slice(0, 80)}`
    : '';
  const headers = request.headers.map(([name, value]) => `${name}:${value.length}`).join(',');
  return `${request.method} ${request.target.slice(0, 120)} [${headers}]${body}`.slice(0, 300);
}
