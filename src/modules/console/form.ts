// What a console form sends: an urlencoded body, turned into the value the API route's own schema
// checks, so a form is held to the same rules as the route (same lengths, same enums) and a value
// the route would refuse is refused here with its field named.
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ApiError } from "../../http/errors";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The form's fields; an empty or malformed body is an empty form. */
export function formOf(body: unknown): URLSearchParams {
  return new URLSearchParams(typeof body === "string" ? body : "");
}

/** A text field, trimmed; undefined when absent or blank. */
export function text(form: URLSearchParams, name: string): string | undefined {
  const value = form.get(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** Every value of a repeated field (checkboxes). */
export function all(form: URLSearchParams, name: string): string[] {
  return form.getAll(name).filter((v) => v !== "");
}

/** `value` when the schema accepts it; 422 naming the first field it refuses. */
export function checked<S extends TSchema>(schema: S, value: unknown): S["static"] {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return value as S["static"];
  const first = check.Errors(value).First();
  const where = first?.path ? first.path.replace(/^\//, "").replaceAll("/", " ") : "form";
  throw new ApiError(422, "unprocessable", `${where}: ${first?.message ?? "not accepted"}.`);
}
