// Text assets imported with `with { type: "text" }` and embedded by `bun build --compile`.
declare module "*.sql" {
  const text: string;
  export default text;
}

declare module "*/standalone.js" {
  const path: string;
  export default path;
}

declare module "*/widgets/common.js" {
  const text: string;
  export default text;
}

declare module "*/widgets/trust.js" {
  const text: string;
  export default text;
}

declare module "*/widgets/check.js" {
  const text: string;
  export default text;
}

declare module "*/assets/site.css" {
  const text: string;
  export default text;
}

declare module "*/assets/site.js" {
  const text: string;
  export default text;
}

declare module "*/assets/console.css" {
  const text: string;
  export default text;
}

declare module "*/assets/console.js" {
  const text: string;
  export default text;
}
