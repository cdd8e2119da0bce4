/**
 * Runs task(0) … task(count - 1) with at most `limit` at once. After the first failure no new
 * task starts; the returned promise settles only when every started task has, and rejects with
 * that first failure. So a caller cleaning up after a failure never races a task still running.
 */
export async function runLimited(count: number, limit: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < count) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(limit, count)) }, worker));
  if (failure !== undefined) throw failure.error;
}
