/**
 * A data file read back at start: the snapshot with the changes logged after it (see stub/persist.ts), a torn last
 * change dropped, a log that follows another snapshot left out. Also how a log names the snapshot it follows.
 */
import { createHash, type Hash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { INT64_MAX, parseJson, readTextFile, type JsonValue, type Spec } from '../spec/index.js'
import { kindOf, leftoverLogsOf, logPathOf, readSmallFile } from './disk.js'
import { readJsonText, readSnapshot, type Snapshot } from './seed.js'
import { StoreError } from './store.js'

/**
 * The first line of a log: the snapshot it follows, by a digest of the snapshot's bytes. A crash between the two renames
 * of a compaction leaves the new snapshot beside the log of the old one; read on top of it, that log would bring the
 * pets of the old state into a reset or restored one (or drop, in a mix, those the snapshot folded in). A log that does
 * not follow the data file is left unread: its changes are in the snapshot, or were replaced by it.
 */
export function followsLine(digest: string): string {
  return `{"follows":"${digest}"}\n`
}

/** The digest a log's first line names its snapshot by. */
export function digestOf(): Hash {
  return createHash('sha256')
}

/**
 * The state kept in the data file and its log (the snapshot with the logged changes after it), its pets checked against
 * `spec` (the one in use by default), or `undefined` when there is no file yet. `onNotice` hears of a torn last
 * record, which is dropped. Throws StoreError (one line) otherwise.
 */
export function readDataFile(
  path: string,
  spec?: Spec,
  onNotice: (message: string) => void = () => undefined,
): Snapshot | undefined {
  const logPath = logPathOf(path)
  const hasFile = existsSync(path)
  if (!hasFile && !existsSync(logPath)) return undefined
  // Reading a FIFO would wait for a writer for ever, deaf even to SIGTERM; a device or a folder is no data file either.
  for (const file of [path, logPath]) {
    const kind = existsSync(file) ? kindOf(file) : 'a file'
    if (kind !== 'a file')
      throw new StoreError(`cannot use ${file} as the data file${file === path ? '' : "'s log"}: it is ${kind}`)
  }
  const where = `the data file ${path}`
  const { follows, changes: logged } = readLog(logPath, onNotice)
  if (!hasFile) {
    // The stub writes the snapshot before it makes the log, so a log alone is one whose data file was removed or moved:
    // read alone it would bring back the last changes without the pets before them.
    if (logged.length === 0) return undefined
    throw new StoreError(
      `the data file ${path} is missing but its log ${logPath} holds changes made after it: put the data file back, or remove the log to start afresh`,
    )
  }
  const { text, value: saved } = readJsonText(path, 'data file')
  let changes = logged
  const digest = follows === undefined || changes.length === 0 ? follows : digestOf().update(text, 'utf8').digest('hex')
  if (digest !== follows) {
    if (compactionCommitted(path, digest!)) {
      // The stub stopped between a compaction's two renames: the data file holds the log's changes, or a reset or a
      // restore replaced them on purpose. Read on top, the log would bring old pets into a reset state.
      onNotice(
        `the data file ${path} was written anew as the stub stopped, its new log not yet in place: the ${changes.length} changes of the old log ${logPath} are in the data file or were replaced by it, and are left out`,
      )
      changes = []
    } else
      onNotice(
        `the data file ${path} was changed after its log ${logPath} was written (by hand, or copied): the log's changes are read on top of it, those it does not hold already`,
      )
  }
  const value = Array.isArray(saved) ? { pets: saved } : saved
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Array.isArray(value.pets))
    return readSnapshot(value, where, spec) // throws, naming what is wrong
  if (changes.length === 0) return readSnapshot(value, where, spec)
  // Changes older than the snapshot are in it already (a crash between writing it and emptying the log).
  const pets = [...value.pets]
  let next = bigOf(value.nextId) ?? pets.reduce<bigint>((most, pet) => max(most, (bigOf(idOf(pet)) ?? 0n) + 1n), 1n)
  const since = next
  // The line of the log each pet after the snapshot's came from: a message about it names that line.
  const lines: number[] = []
  for (const change of changes) {
    if ('add' in change) {
      const id = bigOf(idOf(change.add))!
      next = max(next, id + 1n) // an id the log gave is never given again, its pet in the snapshot or not
      if (id >= since) lines[pets.push(change.add) - 1] = change.line
    } else next = max(next, change.nextId)
    if (next - 1n > INT64_MAX)
      throw new StoreError(
        `the data file's log ${logPath}, line ${change.line}: ${'add' in change ? 'add.id' : 'nextId'} is past the largest id an int64 holds`,
      )
  }
  const placeOf = (index: number) =>
    lines[index] === undefined
      ? undefined
      : { where: `the data file's log ${logPath}, line ${lines[index]}`, name: 'add' }
  return readSnapshot({ pets, nextId: next }, where, spec, { placeOf })
}

type Change = ({ add: JsonValue } | { nextId: bigint }) & { line: number }

/**
 * The log's changes in order, and the digest of the snapshot it follows (its first line; a log written before there was
 * such a line has none). A torn tail (a crash mid-write: never acknowledged) is dropped with one notice.
 */
function readLog(logPath: string, onNotice: (message: string) => void): { follows?: string; changes: Change[] } {
  let text: string
  try {
    text = readTextFile(logPath)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { changes: [] }
    throw new StoreError(`cannot read the data file's log ${logPath}: ${(error as Error).message}`)
  }
  const lines = text.split('\n')
  const follows = /^\{"follows":"([0-9a-f]{64})"\}$/.exec(lines[0]!)?.[1]
  const changes: Change[] = []
  let bad: { line: number; why: string } | undefined
  for (let i = follows === undefined || lines.length === 1 ? 0 : 1; i < lines.length; i++) {
    const line = lines[i]!
    if (line === '') continue
    // A line with no newline after it was never flushed whole, so never acknowledged.
    const last = i === lines.length - 1
    const change = last ? undefined : changeOf(line, i + 1)
    if (change === undefined) {
      // A crash tears only the end of the last write: a line cut before its newline, or zeros where a power cut left
      // the disk's blocks unwritten. A whole line that is no change was written by someone else, or damaged since: it
      // may have been an acknowledged pet, whose loss must not pass for a crash's (its id would be given again).
      if (!last && !line.includes('\0'))
        throw new StoreError(
          `the data file's log ${logPath}: line ${i + 1} is not a change the stub wrote (${excerpt(line)}): the log was edited or damaged; mend or remove that line`,
        )
      bad ??= { line: i + 1, why: last ? 'it ends before its newline' : 'zeros a crash left' }
      continue
    }
    if (bad !== undefined)
      throw new StoreError(
        `the data file's log ${logPath}: line ${bad.line} is not a change (${bad.why}), and changes follow it`,
      )
    changes.push(change)
  }
  if (bad !== undefined) {
    const bytes = Buffer.byteLength(lines.slice(bad.line - 1).join('\n'))
    onNotice(
      `the data file's log ${logPath} ends in a torn record from a crash (line ${bad.line}, ${bytes} bytes): dropped, it was never acknowledged`,
    )
  }
  return { follows, changes }
}

/** The start of a log's line, quoted, for a message that names it. */
function excerpt(line: string): string {
  return JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}…` : line)
}

function changeOf(line: string, number: number): Change | undefined {
  let value: JsonValue
  try {
    value = parseJson(line)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const keys = Object.keys(value)
  if (keys.length !== 1) return undefined
  if (keys[0] === 'add' && bigOf(idOf(value.add)) !== undefined) return { add: value.add!, line: number }
  const next = keys[0] === 'nextId' ? bigOf(value.nextId) : undefined
  return next === undefined ? undefined : { nextId: next, line: number }
}

function idOf(pet: JsonValue | undefined): JsonValue | undefined {
  return pet !== null && typeof pet === 'object' && !Array.isArray(pet) ? pet.id : undefined
}

function bigOf(value: JsonValue | undefined): bigint | undefined {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value))
    ? BigInt(value)
    : undefined
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}

/** `pieces` as they are, each added to `digest` on its way. */
export function* digested(pieces: Iterable<string | Uint8Array>, digest: Hash): Generator<string | Uint8Array> {
  for (const piece of pieces) {
    if (typeof piece === 'string') digest.update(piece, 'utf8')
    else digest.update(piece)
    yield piece
  }
}

/**
 * True when the new log of a compaction that put `digest` in as the data file waits under its temporary name
 * (`FILE.log.PID.tmp`): the stub stopped between the compaction's two renames. A data file changed by hand has no such
 * log, and the log beside it is read on top of it as before.
 */
function compactionCommitted(path: string, digest: string): boolean {
  const wanted = followsLine(digest)
  return leftoverLogsOf(path).some((leftover) => readSmallFile(leftover, wanted.length) === wanted)
}
