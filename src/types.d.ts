// Text assets imported with `with { type: "text" }` and embedded by `bun build --compile`.
declare module "*.sql" {
  const text: string;
  export default text;
}
