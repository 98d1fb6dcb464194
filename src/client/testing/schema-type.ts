/**
 * The TypeScript type a JSON schema describes, for the `as const` schemas of src/server/schemas: enough of JSON
 * Schema for them (type and its unions, enum, oneOf, properties with required, additionalProperties, items). Used by the
 * client's contract test to prove its types equal to the server's schemas.
 */

type Scalar<T> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : never;

type Properties<S> = S extends { properties: infer P }
  ? {
      -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: SchemaType<P[K]>;
    } & {
      -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: SchemaType<P[K]>;
    }
  : unknown;

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R : never;

type ObjectType<S> = S extends { properties: unknown }
  ? Properties<S>
  : S extends { additionalProperties: infer A }
    ? A extends false
      ? Record<string, never>
      : Record<string, A extends true ? unknown : SchemaType<A>>
    : Record<string, unknown>;

type OfType<S, T> = T extends 'object' ? ObjectType<S> : T extends 'array' ? (S extends { items: infer I } ? SchemaType<I>[] : unknown[]) : Scalar<T>;

export type SchemaType<S> = S extends { oneOf: readonly (infer O)[] }
  ? SchemaType<O>
  : S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: infer T }
    ? T extends readonly (infer U)[]
      ? OfType<S, U>
      : OfType<S, T>
    : unknown;

/** A type with its intersections flattened and arrays kept, all the way down, so that equal types compare equal. */
export type Normalize<T> = T extends readonly (infer E)[] ? Normalize<E>[] : T extends object ? { -readonly [K in keyof T]: Normalize<T[K]> } : T;

/** true when A and B are the same type (after normalizing), else false. */
export type Equal<A, B> = (<X>() => X extends Normalize<A> ? 1 : 2) extends <X>() => X extends Normalize<B> ? 1 : 2 ? true : false;
