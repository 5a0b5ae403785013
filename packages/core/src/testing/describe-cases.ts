/** @module How both conformance suites register their cases with jest (or any runner with describe/it globals). */

/** A case as the registrar sees it: its group and its name. */
interface NamedCase {
  readonly group: string;
  readonly name: string;
}

/**
 * Registers `cases` under `title`, one `describe` per group in the order the groups first appear:
 * each case runs through `run` on a fresh harness from `make`, closed after it.
 */
export function describeCases<C extends NamedCase, H extends { close?(): Promise<void> }>(
  title: string,
  cases: readonly C[],
  make: () => H | Promise<H>,
  run: (testCase: C, harness: H) => Promise<void>,
): void {
  describe(title, () => {
    let harness: H | undefined;

    afterEach(async () => {
      await harness?.close?.();
      harness = undefined;
    });

    const groups = [...new Set(cases.map((c) => c.group))];
    for (const group of groups) {
      describe(group, () => {
        for (const testCase of cases.filter((c) => c.group === group)) {
          it(testCase.name, async () => {
            harness = await make();
            await run(testCase, harness);
          });
        }
      });
    }
  });
}
