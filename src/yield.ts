// Long work on the one request thread (index builds, recounts, daily recomputation) runs in slices
// with this between them, so requests that arrived meanwhile are served before the next slice.
export const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));
