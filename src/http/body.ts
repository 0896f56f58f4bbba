// Request bodies that declare no length (chunked uploads). The 413 check on Content-Length cannot
// see their size, so they are read here within the limit and parsed, instead of by Elysia.
import { ApiError } from "./errors";

/**
 * The parsed body of a request without Content-Length, or undefined when the request declares
 * its length (Elysia's own parser takes those). 413 past `max` bytes, 400 for bad JSON.
 */
export async function parseUndeclaredBody(request: Request, contentType: string, max: number): Promise<unknown> {
  if (request.headers.has("content-length") || !request.body) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new ApiError(413, "payload_too_large", `Request body is larger than ${max} bytes.`);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!contentType.includes("json")) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_request", "Request body is not valid JSON.");
  }
}
