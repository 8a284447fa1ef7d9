/** Bad input to either command (flags, environment, files it was pointed at): exit code 2 and one line. */
export class UsageError extends Error {
  override name = 'UsageError'
}
