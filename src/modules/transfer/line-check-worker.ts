// The thread that checks a large import's lines against their schemas (lines.ts) while the import
// writes them: {path} in; {type: "through", lineNo} now and then, then {type: "done", failure}.
import { firstSchemaFailure } from "./lines";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<{ path: string }>) => {
  try {
    const failure = await firstSchemaFailure(event.data.path, (lineNo) => self.postMessage({ type: "through", lineNo }));
    self.postMessage({ type: "done", failure });
  } catch (error) {
    self.postMessage({ type: "error", message: String(error) });
  }
};
