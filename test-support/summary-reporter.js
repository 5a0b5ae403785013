// Jest reporter: when JEST_JSON names a file, writes the run's totals there so .ci/run can
// print the plain closing line "N passed, N failed" after `pnpm test`, and each file's wall time
// (slowest first) with when it started and its CPU seconds, to see where a run's time goes.
const fs = require('node:fs');
const path = require('node:path');

/** The CPU seconds per test file path that cpu-per-file.js recorded in `cpuFile` (consumed). */
function cpuByFile(cpuFile) {
  const cpu = new Map();
  if (!fs.existsSync(cpuFile)) return cpu;
  for (const line of fs.readFileSync(cpuFile, 'utf8').split('\n').filter(Boolean)) {
    const { testPath, cpu: seconds } = JSON.parse(line);
    cpu.set(testPath, seconds);
  }
  fs.rmSync(cpuFile);
  return cpu;
}

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.JEST_JSON;
    if (!file) return;
    const { numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests } = results;
    const cpu = cpuByFile(`${file}.cpu`);
    const first = Math.min(...results.testResults.map((r) => r.perfStats.start));
    const files = results.testResults
      .map((r) => ({
        file: path.relative(process.cwd(), r.testFilePath),
        seconds: Math.round(r.perfStats.end - r.perfStats.start) / 1000,
        // When it started, in seconds from the run's first file; its CPU seconds (cpu-per-file.js).
        from: Math.round(r.perfStats.start - first) / 1000,
        cpu: cpu.get(r.testFilePath),
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
