/**
 * @module The HTTP event sources a Lambda function is invoked by, told apart by the shape of the
 * event alone (no configuration): API Gateway REST (payload 1.0), HTTP API and Function URLs
 * (payload 2.0), and ALB target groups. Anything else is refused with {@link UnsupportedEventError}.
 */
import type { ALBEvent, APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';

/** An HTTP event a guarded Lambda handler takes. */
export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2 | ALBEvent;

/**
 * Which shape the event has, and so which shape the answer must have:
 * - `'v1'`: API Gateway REST API (and HTTP API with payload format 1.0), `httpMethod` at the top;
 * - `'v2'`: API Gateway HTTP API (payload format 2.0) and Lambda Function URLs, `version: '2.0'`;
 * - `'alb'`: an Application Load Balancer target group, `requestContext.elb`.
 */
export type EventSource = 'v1' | 'v2' | 'alb';

/** The event's parsed view, with its source: what the request and the answer are built from. */
export type SourcedEvent =
  | { readonly source: 'v1'; readonly event: APIGatewayProxyEvent }
  | { readonly source: 'v2'; readonly event: APIGatewayProxyEventV2 }
  | { readonly source: 'alb'; readonly event: ALBEvent };

/**
 * The event is not an HTTP event this adapter reads: an SQS, SNS or EventBridge event, a direct
 * invocation, or a shape it does not know. Thrown to Lambda (the invocation fails), since there
 * is no HTTP caller to answer; nothing is claimed or stored. `code` is
 * `ERR_IDEMPOTENCY_LAMBDA_EVENT`; `received` names what the event looked like.
 */
export class UnsupportedEventError extends TypeError {
  readonly code = 'ERR_IDEMPOTENCY_LAMBDA_EVENT';
  /** What the event looked like: `'an SQS event'`, `'a direct invocation with keys a, b'`, … */
  readonly received: string;
  constructor(received: string) {
    super(
      `The Lambda handler got ${received}, not an HTTP event: it takes API Gateway REST (payload 1.0), HTTP API or Function URL (payload 2.0) and ALB target group events; nothing was claimed or stored`,
    );
    this.name = 'UnsupportedEventError';
    this.received = received;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names the record source of an SQS/SNS/S3/DynamoDB Streams/Kinesis event, if it is one. */
function recordsSource(event: Record<string, unknown>): string | undefined {
  const records = event.Records;
  if (!Array.isArray(records)) return undefined;
  const first: unknown = records[0];
  const source = isObject(first) ? (first.eventSource ?? first.EventSource) : undefined;
  const names: Record<string, string> = {
    'aws:sqs': 'an SQS event',
    'aws:sns': 'an SNS event',
    'aws:s3': 'an S3 event',
    'aws:dynamodb': 'a DynamoDB Streams event',
    'aws:kinesis': 'a Kinesis event',
  };
  return (typeof source === 'string' && names[source]) || 'an event of records';
}

/** A short description of an event this adapter does not read, for the error. */
function describe(event: unknown): string {
  if (!isObject(event))
    return `a direct invocation with ${event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event}`;
  const records = recordsSource(event);
  if (records) return records;
  if (typeof event['detail-type'] === 'string') return 'an EventBridge event';
  if (event.version === '2.0' || event.version === '1.0') {
    return `a payload ${event.version} event without its ${event.version === '2.0' ? 'requestContext.http' : 'httpMethod'}`;
  }
  const keys = Object.keys(event).slice(0, 6);
  return keys.length === 0 ? 'an empty object' : `a direct invocation with keys ${keys.join(', ')}`;
}

/**
 * Tells the event's source by its shape.
 * @throws {UnsupportedEventError} for any other event.
 */
export function sourceOf(event: unknown): SourcedEvent {
  if (isObject(event)) {
    const context = event.requestContext;
    if (isObject(context)) {
      if (event.version === '2.0' && isObject(context.http))
        return { source: 'v2', event: event as unknown as APIGatewayProxyEventV2 };
      if (typeof event.httpMethod === 'string') {
        if (isObject(context.elb)) return { source: 'alb', event: event as unknown as ALBEvent };
        return { source: 'v1', event: event as unknown as APIGatewayProxyEvent };
      }
    }
  }
  throw new UnsupportedEventError(describe(event));
}
