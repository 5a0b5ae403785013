/**
 * @module GitHub's own webhook payload types for the GitHub preset, from
 * `@octokit/openapi-webhooks-types` (generated from GitHub's OpenAPI description; an optional
 * peer): `providers.github<GitHubEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { operations } from '@octokit/openapi-webhooks-types';

/** `pull-request-review` as GitHub names the event in `X-GitHub-Event`: `pull_request_review`. */
type Snake<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Head}_${Snake<Tail>}`
  : Name;

/** The `X-GitHub-Event` name of an OpenAPI operation (`pull-request/opened` → `pull_request`). */
type EventName<Operation> = Operation extends `${infer Event}/${string}`
  ? Snake<Event>
  : Operation extends string
    ? Snake<Operation>
    : never;

/** The JSON body of an operation. */
type Payload<Operation> = Operation extends {
  readonly requestBody: { readonly content: { readonly 'application/json': infer Body } };
}
  ? Body
  : never;

/**
 * Each `X-GitHub-Event` name (`eventType(request)`) to its payloads, one per `action`, as a union
 * narrowed by `action`: `GitHubEvents['pull_request']`.
 */
export type GitHubEvents = {
  [Operation in keyof operations as EventName<Operation>]: Payload<operations[Operation]>;
};

/** Every GitHub webhook payload. */
export type GitHubEvent = GitHubEvents[keyof GitHubEvents];
