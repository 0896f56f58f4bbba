// Structured one-line JSON logs on stdout. Lines are buffered and written in batches so an access
// log line per request does not cost a write system call per request.
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Fields of an access line. request_id, method and key_id are plain ASCII tokens by construction. */
export interface AccessFields {
  request_id: string;
  method: string;
  path: string;
  route: string | null;
  status: number;
  duration_ms: number;
  key_id?: string;
}

let lastMs = -1;
let lastIso = "";

/** The current time as ISO 8601; formatted once per millisecond however many lines share it. */
function timestamp(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export class Logger {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** `base` fields (`serve --workers`: the worker's number) as JSON members, written into every line. */
  private readonly baseText: string;

  constructor(
    private readonly enabled: { access: boolean },
    private readonly sink: (text: string) => void = (text) => process.stdout.write(text),
    private readonly base: LogFields = {},
  ) {
    this.baseText = Object.entries(base)
      .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
      .join("");
  }

  get accessEnabled() {
    return this.enabled.access;
  }

  info(msg: string, fields: LogFields = {}) {
    this.line("info", msg, fields);
  }

  warn(msg: string, fields: LogFields = {}) {
    this.line("warn", msg, fields);
  }

  error(msg: string, fields: LogFields = {}) {
    this.line("error", msg, fields);
  }

  /**
   * One access line. Written by hand rather than through JSON.stringify of an object: it runs on
   * every request. Only `path` and `route` can hold characters that need escaping.
   */
  access(fields: AccessFields) {
    if (!this.enabled.access) return;
    let text = `{"ts":"${timestamp()}","level":"info","msg":"request","request_id":"${fields.request_id}","method":"${fields.method}","path":${JSON.stringify(fields.path)},"route":${fields.route === null ? "null" : JSON.stringify(fields.route)},"status":${fields.status},"duration_ms":${fields.duration_ms}`;
    if (fields.key_id) text += `,"key_id":"${fields.key_id}"`;
    this.append(text + this.baseText + "}\n");
  }

  flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer) {
      const text = this.buffer;
      this.buffer = "";
      this.sink(text);
    }
  }

  private line(level: string, msg: string, fields: LogFields) {
    this.append(JSON.stringify({ ts: timestamp(), level, msg, ...this.base, ...fields }) + "\n");
  }

  private append(text: string) {
    this.buffer += text;
    if (this.buffer.length > 64 * 1024) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), 50);
  }
}
