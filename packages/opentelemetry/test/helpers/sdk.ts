/** A real OpenTelemetry SDK with in-memory exporters, per test: no globals are registered. */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** One exported metric point: its attributes and its value (a number, or a histogram's count and sum). */
export interface Point {
  readonly attributes: Record<string, unknown>;
  readonly value: number | { readonly count: number; readonly sum?: number };
}

export function createSdk() {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spanExporter)],
  });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });

  return {
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => spanExporter.getFinishedSpans(),
    /** Collects now and returns the points of metric `name`. */
    async points(name: string): Promise<Point[]> {
      await reader.forceFlush();
      const last = metricExporter.getMetrics().at(-1);
      const metric = last?.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []).map((p) => ({
        attributes: { ...p.attributes },
        value: p.value as Point['value'],
      }));
    },
    /** Collects now and returns metric `name`'s descriptor (name, unit, type), or `undefined`. */
    async descriptor(name: string) {
      await reader.forceFlush();
      const last = metricExporter.getMetrics().at(-1);
      const metric = last?.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((m) => m.descriptor.name === name);
      return metric && { ...metric.descriptor, dataPointType: metric.dataPointType };
    },
    async shutdown(): Promise<void> {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}

/** A counter's value per `webhook.outcome` (and provider), for compact assertions. */
export function byOutcome(points: Point[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { attributes, value } of points) {
    const name = `${String(attributes['webhook.provider'])}:${String(attributes['webhook.outcome'])}`;
    out[name] = typeof value === 'number' ? value : value.count;
  }
  return out;
}
