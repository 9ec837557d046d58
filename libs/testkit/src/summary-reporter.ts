import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends a run with one plain line, `tests: N passed, N failed, N skipped`, that CI
 * systems read whatever the test runner.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      if (testModule.state() === 'failed' && testModule.children.size === 0) counts.failed++;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed' || state === 'failed') counts[state]++;
        else counts.skipped++;
      }
    }
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
