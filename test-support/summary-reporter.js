// Jest reporter: when JEST_JSON names a file, writes the run's totals there so .ci/run can
// print the plain closing line "N passed, N failed" after `pnpm test`, and each file's wall time
// (slowest first), to see where a run's time goes.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.JEST_JSON;
    if (!file) return;
    const { numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests } = results;
    const files = results.testResults
      .map((r) => ({
        file: path.relative(process.cwd(), r.testFilePath),
        seconds: Math.round(r.perfStats.end - r.perfStats.start) / 1000,
        tests: r.testResults.length,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    fs.writeFileSync(
      file,
      JSON.stringify({
        numPassedTests,
        numFailedTests,
        numRuntimeErrorTestSuites,
        numTotalTests,
        files,
      }),
    );
  }
}

module.exports = SummaryReporter;
