// Prints the closing line the CI harness reads, `N passed, N failed`, from vitest's JSON report.
// Non-test steps that failed (lint, typecheck) count as failures too, so a red step is never
// hidden behind green tests. Exits non-zero when anything failed.
import { readFileSync } from 'node:fs';

const [reportPath = 'reports/vitest.json', failedStepsArg = '0'] = process.argv.slice(2);
const failedSteps = Number(failedStepsArg) || 0;
let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  // A file that failed to load or whose hooks threw has no failed test of its own: count it.
  // The harness keeps only the tail of CI's output: name each failure here, next to the count.
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const test of failedTests) {
      console.log(`FAILED ${file.name}: ${test.fullName}`);
      console.log(`  ${firstLine(test.failureMessages?.[0])}`);
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      failed += 1;
      console.log(`FAILED ${file.name} (the file itself): ${firstLine(file.message)}`);
    }
  }
  if (report.numTotalTests === 0) failed += 1;
} catch (error) {
  console.error(`no readable vitest report at ${reportPath}: ${error.message}`);
  failed += 1;
}
failed += failedSteps;

function firstLine(text) {
  return String(text ?? '(no message)')
    .split('\n')[0]
    .slice(0, 300);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
