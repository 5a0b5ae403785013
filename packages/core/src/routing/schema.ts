/**
 * @module Standard Schema, as a type: what a route's `schema` is (zod, valibot, arktype… all
 * implement it), and how a payload is checked against one. Nothing of any schema library is
 * imported: a schema is recognised by its `~standard` property.
 */

/** One problem a schema found in a payload. */
export interface SchemaIssue {
  readonly message: string;
  /** Where in the payload: property names or indexes, or objects carrying one as `key`. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a schema's `validate` returns: the output value, or the issues found. */
export type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> };

/**
 * A schema that follows the Standard Schema specification (version 1), as zod 3.24+, valibot 1,
 * arktype 2 and others implement it. `Output` is what a route's handler gets.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** The type a schema's successful validation produces. */
export type SchemaOutput<S> = S extends StandardSchema<unknown, infer O> ? O : never;

/** True for a value that carries a Standard Schema `~standard` property. */
export function isStandardSchema(value: unknown): value is StandardSchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const standard = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof standard === 'object' && typeof standard?.validate === 'function';
}

/** An issue as one line: `data.object.amount: Expected number` (the path dotted, when there is one). */
export function issueText(issue: SchemaIssue): string {
  const path = (issue.path ?? []).map((part) =>
    typeof part === 'object' && part !== null ? String(part.key) : String(part),
  );
  return path.length > 0 ? `${path.join('.')}: ${issue.message}` : issue.message;
}

/** Validates `value` against `schema`: its output, or the issues as lines of text. */
export async function validate(
  schema: StandardSchema,
  value: unknown,
): Promise<{ readonly value: unknown } | { readonly issues: readonly string[] }> {
  const result = await schema['~standard'].validate(value);
  if (result.issues) return { issues: result.issues.map(issueText) };
  return { value: result.value };
}
