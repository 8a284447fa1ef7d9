/**
 * The one bounded pool for tests and scripts: runs `work` over `items`, at most `size` at a time, and resolves to the
 * results in the order of `items`. Commands are node processes with vitest inside; on two cores, two at a time.
 * On the first failure no new item starts; the ones in flight finish (and close what they opened), then it rejects.
 */
export async function pool<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a positive integer, got ${size}`)
  const results: R[] = new Array(items.length)
  let next = 0
  let failure: { error: unknown } | undefined
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++
      try {
        results[index] = await work(items[index]!, index)
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker))
  if (failure) throw failure.error
  return results
}
