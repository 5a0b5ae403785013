// Jest setup file (only when JEST_JSON names a results file): records the CPU seconds each test
// file spent, its own worker's and that of the child processes it waited for (the servers, npm,
// tsc it spawned), as one line of `<JEST_JSON>.cpu`. summary-reporter.js adds them to the file's
// entry. A worker runs one file at a time, so the difference from this file's start to its
// afterAll is that file's.
const fs = require('node:fs');

const file = process.env.JEST_JSON;

/** This process's and its reaped children's CPU seconds (Linux /proc; 0 for the children elsewhere). */
function cpuSeconds() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // After "pid (comm) ", field 3 is the state; cutime and cstime are fields 16 and 17 (1-based).
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {}
  return (own.user + own.system) / 1e6 + children;
}

if (file) {
  const start = cpuSeconds();
  afterAll(() => {
    const testPath = expect.getState().testPath;
    fs.appendFileSync(
      `${file}.cpu`,
      `${JSON.stringify({ testPath, cpu: Math.round((cpuSeconds() - start) * 10) / 10 })}\n`,
    );
  });
}
