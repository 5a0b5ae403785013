/**
 * The shipped Prometheus rules, scrape config and Grafana dashboard, checked with Prometheus's own
 * `promtool` (Debian's `prometheus` package): the rules' unit tests pass as shipped, and fail
 * when a healthy series of their input crosses a threshold or when a rule's threshold moves, so
 * the tests do pin each threshold. Every metric the rules and the dashboard name is one that
 * `@webhook-idempotency/opentelemetry` exports, as the OpenTelemetry Prometheus exporter names it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MetricName } from '@webhook-idempotency/opentelemetry';

const dir = join(__dirname, '..', 'prometheus');
const dashboard = join(__dirname, '..', 'grafana', 'webhook-idempotency.json');

/** Runs promtool in `cwd`; resolves with its exit code and output (never rejects on a failed check). */
function promtool(args: string[], cwd = dir): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile('promtool', args, { cwd }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT')
        reject(
          new Error('promtool is missing: apt-get install -y --no-install-recommends prometheus'),
        );
      else resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** A copy of the rules and their tests with `edit` applied to one file, checked by promtool. */
async function mutated(file: 'alerts.yml' | 'alerts.test.yml', edit: (text: string) => string) {
  const copy = mkdtempSync(join(tmpdir(), 'wi-rules-'));
  try {
    for (const name of ['alerts.yml', 'alerts.test.yml'])
      copyFileSync(join(dir, name), join(copy, name));
    const original = readFileSync(join(copy, file), 'utf8');
    const changed = edit(original);
    expect(changed).not.toBe(original);
    writeFileSync(join(copy, file), changed);
    return await promtool(['test', 'rules', 'alerts.test.yml'], copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

describe('the Prometheus alert rules', () => {
  it('pass their promtool unit tests, and the scrape config with its rules is valid', async () => {
    const tested = await promtool(['test', 'rules', 'alerts.test.yml']);
    expect(tested).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
    const checked = await promtool(['check', 'config', 'prometheus.yml']);
    expect(checked.code).toBe(0);
    expect(checked.output).toContain('6 rules found');
  });

  it.each([
    [
      "stripe's answers slow down past 250 ms",
      'WebhookAnswerSlow',
      (t: string) =>
        t
          .replace(/(stripe",le="0\.05"}'\n\s+values: )"0\+60x40"/, '$1"0+0x40"')
          .replace(/(stripe",le="0\.25"}'\n\s+values: )"0\+60x40"/, '$1"0+0x40"'),
    ],
    [
      'a stripe delivery stays stuck',
      'WebhookInboxStuck',
      (t: string) =>
        t.replace(
          /(delivery_stuck{webhook_provider="stripe"}'\n\s+values: )"0x40"/,
          '$1"0x5 1x35"',
        ),
    ],
    [
      'an http outbox message dies',
      'WebhookOutboxDead',
      (t: string) =>
        t.replace(
          /(outbox_dead_total{webhook_sender="http"}'\n\s+values: )"0x40"/,
          '$1"0x11 1x29"',
        ),
    ],
    [
      'stripe fails one delivery in five',
      'WebhookFailureRate',
      (t: string) =>
        t.replace(
          /(failures_total{webhook_provider="stripe"}'\n\s+values: )"0\+1x40"/,
          '$1"0+20x40"',
        ),
    ],
  ])('fail when a healthy series crosses a threshold: %s', async (_what, alert, edit) => {
    const { code, output } = await mutated('alerts.test.yml', edit);
    expect(code).not.toBe(0);
    expect(output).toContain(`alertname: ${alert}`);
    expect(output).toMatch(/webhook_provider="stripe"|webhook_sender="http"/);
  });

  it.each([
    ['the answer-time threshold moved to 2.5 s', '> 0.25', '> 2.5', 'WebhookAnswerSlow'],
    [
      'the stuck threshold moved to 5 deliveries',
      '(webhook_inbox_delivery_stuck) > 0',
      '(webhook_inbox_delivery_stuck) > 5',
      'WebhookInboxStuck',
    ],
    ['the stuck wait moved from 5 to 30 minutes', 'for: 5m', 'for: 30m', 'WebhookInboxStuck'],
  ])('fail when a rule changes: %s', async (_what, from, to, alert) => {
    const { code, output } = await mutated('alerts.yml', (t) => t.replace(from, to));
    expect(code).not.toBe(0);
    expect(output).toContain(`alertname: ${alert}`);
  });
});

describe('the names the rules and the dashboard use', () => {
  // As the OpenTelemetry Prometheus exporter serves them: dots to underscores, counters with _total.
  const exported = new Set([
    `${MetricName.ANSWER_DURATION.replace(/\./g, '_')}_bucket`,
    `${MetricName.FAILURES.replace(/\./g, '_')}_total`,
    `${MetricName.DELIVERIES.replace(/\./g, '_')}_total`,
    `${MetricName.DEAD_LETTERS.replace(/\./g, '_')}_total`,
    MetricName.UNFINISHED.replace(/\./g, '_'),
    MetricName.STUCK.replace(/\./g, '_'),
    MetricName.OLDEST_AGE.replace(/\./g, '_'),
    `${MetricName.OUTBOX_DEAD.replace(/\./g, '_')}_total`,
  ]);
  const named = (text: string) => new Set(text.match(/\bwebhook_[a-z_]+/g) ?? []);

  it('every metric in the alert rules is one the package exports; both figures are alerted on', () => {
    const rules = readFileSync(join(dir, 'alerts.yml'), 'utf8').replace(/^\s*#.*$/gm, '');
    const used = named(rules);
    // The labels, from the attributes `webhook.provider` and `webhook.sender`.
    used.delete('webhook_provider');
    used.delete('webhook_sender');
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    for (const figure of ['webhook_answer_duration_bucket', 'webhook_inbox_delivery_stuck'])
      expect(used).toContain(figure);
  });

  it('the Grafana dashboard shows both figures and names only exported metrics', () => {
    const json = JSON.parse(readFileSync(dashboard, 'utf8')) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const exprs = json.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const used = named(exprs.join('\n'));
    used.delete('webhook_provider');
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    const titles = json.panels.map((p) => p.title);
    expect(titles).toEqual(
      expect.arrayContaining(['Answer time by provider (p50, p95)', 'Inbox backlog by provider']),
    );
  });
});
