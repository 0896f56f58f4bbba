// Structured one-line JSON logs on stdout. Lines are buffered and written in batches so an access
// log line per request does not cost a write system call per request.
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export class Logger {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly enabled: { access: boolean },
    private readonly sink: (text: string) => void = (text) => process.stdout.write(text),
  ) {}

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

  access(fields: LogFields) {
    if (this.enabled.access) this.line("info", "request", fields);
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
    this.buffer += JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }) + "\n";
    if (this.buffer.length > 64 * 1024) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), 50);
  }
}
