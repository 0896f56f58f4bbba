// Text assets imported with `with { type: "text" }` and embedded by `bun build --compile`.
declare module "*.sql" {
  const text: string;
  export default text;
}

declare module "*/standalone.js" {
  const path: string;
  export default path;
}
