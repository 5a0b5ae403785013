// Jest reporter: when JEST_JSON names a file, writes the run's totals there so .ci/run can
// print the plain closing line "N passed, N failed" after `pnpm test`.
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.JEST_JSON;
    if (!file) return;
    const { numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests } = results;
    fs.writeFileSync(
      file,
      JSON.stringify({ numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests }),
    );
  }
}

module.exports = SummaryReporter;
