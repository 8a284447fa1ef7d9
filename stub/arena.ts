/**
 * Texts kept outside V8's heap: UTF-8 in fixed-size chunks, each text appended once and read back by its position.
 * The store keeps its pets' JSON here. As strings, every pet created would be copied twice by the young generation
 * (once as a survivor, once into the old one) and then marked by every full collection, which under a stream of
 * creates cost more than making the pet; here the garbage collector never sees them.
 */

/** The size of a chunk; a text longer than that gets a chunk of its own size. */
const CHUNK_BYTES = 256 * 1024

/**
 * Texts whose places one block of places holds (a power of 2). Blocks are added, never grown: a growing array would be
 * copied whole into new memory each time, which the system hands over a page at a time, at a cost (see stub/column.ts).
 */
const PLACES_BITS = 12
const PLACES = 1 << PLACES_BITS
/** Per text in a block: its chunk, where it starts, where it ends (its comma excluded). */
const PLACE = 3

/** How many texts read lately are kept decoded (a power of 2): a client reads the same pets again and again. */
const RECENT = 64

/**
 * The texts an arena held at one moment, read a chunk at a time: what a state answer streams while the store goes on
 * changing. A chunk's bytes below what it held then never change (see {@link TextArena.truncate}), so a view stays
 * exactly what it was taken as.
 */
export interface ArenaView {
  /** The bytes of the texts joined by commas. */
  readonly bytes: number
  /**
   * The texts in order, a chunk at a time: each piece the texts of one chunk joined by commas (views of the arena's
   * memory, not copies). Joined by commas themselves, they are every text joined by commas.
   */
  pieces(): IterableIterator<Buffer>
}

export class TextArena {
  /**
   * Each chunk holds whole texts, each followed by a comma: the texts of one chunk read as a JSON list's members.
   * Bytes once written below a chunk's fill are never written again, whatever is truncated ({@link view} relies on it).
   */
  readonly #chunks: Buffer[] = []
  /** Bytes used in each chunk. */
  readonly #filled: number[] = []
  /** Per text, in blocks of {@link PLACES} texts: its chunk, and where it starts and ends (its comma excluded). */
  readonly #places: Uint32Array[] = []
  #count = 0
  /** The bytes of every text held, and of the comma after each. */
  #bytes = 0
  /** The texts read lately, by position modulo {@link RECENT}; a text never changes, so they never go stale. */
  readonly #recent = new Array<string>(RECENT).fill('')
  readonly #recentAt = new Int32Array(RECENT).fill(-1)

  /** How many texts are held. */
  get length(): number {
    return this.#count
  }

  /** The bytes the texts take, as UTF-8 with a comma after each. */
  get bytes(): number {
    return this.#bytes
  }

  /** Appends a text; returns its position. */
  push(text: string): number {
    let last = this.#chunks.length - 1
    let chunk = this.#chunks[last]
    let used = this.#filled[last] ?? 0
    // UTF-8 takes at most 3 bytes per UTF-16 unit; only a text that might not fit is measured.
    if (chunk === undefined || used + text.length * 3 + 1 > chunk.length) {
      const bytes = Buffer.byteLength(text) + 1
      if (chunk === undefined || used + bytes > chunk.length) {
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes))
        last = this.#chunks.push(chunk) - 1
        used = this.#filled[last] = 0
      }
    }
    const at = this.#count
    const offset = (at & (PLACES - 1)) * PLACE
    if (offset === 0 && at >>> PLACES_BITS === this.#places.length) this.#places.push(new Uint32Array(PLACES * PLACE))
    const places = this.#places[at >>> PLACES_BITS]!
    const end = used + chunk.write(text, used)
    chunk[end] = 0x2c // ,
    places[offset] = last
    places[offset + 1] = used
    places[offset + 2] = end
    this.#filled[last] = end + 1
    this.#bytes += end + 1 - used
    this.#count = at + 1
    return at
  }

  /** The text at a position. */
  at(position: number): string {
    const slot = position & (RECENT - 1)
    if (this.#recentAt[slot] === position) return this.#recent[slot]!
    const places = this.#places[position >>> PLACES_BITS]!
    const offset = (position & (PLACES - 1)) * PLACE
    const text = this.#chunks[places[offset]!]!.toString('utf8', places[offset + 1], places[offset + 2])
    this.#recent[slot] = text
    this.#recentAt[slot] = position
    return text
  }

  /**
   * Drops every text from position `count` on (a change that could not be kept, taken back). The chunk it cuts into is
   * replaced by a copy of what it keeps: the next texts are written there, never over bytes a {@link view} may still read.
   */
  truncate(count: number): void {
    if (count >= this.#count) return
    const places = this.#places[count >>> PLACES_BITS]!
    const offset = (count & (PLACES - 1)) * PLACE
    const chunk = places[offset]!
    const start = places[offset + 1]!
    if (start > 0) {
      const kept = Buffer.allocUnsafe(this.#chunks[chunk]!.length)
      this.#chunks[chunk]!.copy(kept, 0, 0, start)
      this.#chunks[chunk] = kept
    }
    this.#filled[chunk] = start
    // A chunk left empty goes too: `joined` must not add an empty member.
    this.#filled.length = this.#chunks.length = start === 0 ? chunk : chunk + 1
    this.#places.length = (count + PLACES - 1) >>> PLACES_BITS
    this.#count = count
    this.#bytes = this.#filled.reduce((sum, filled) => sum + filled, 0)
    for (let slot = 0; slot < RECENT; slot++) if (this.#recentAt[slot]! >= count) this.#recentAt[slot] = -1
  }

  /** Every text, in order, joined by commas: read a chunk at a time, not a text at a time. */
  joined(): string {
    return this.#chunks.map((chunk, i) => chunk.toString('utf8', 0, this.#filled[i]! - 1)).join(',')
  }

  /**
   * The first `count` texts (all by default) as held now, to be read later a chunk at a time, whatever is pushed or
   * truncated meanwhile.
   */
  view(count = this.#count): ArenaView {
    let chunks = this.#chunks
    let filled = this.#filled
    let bytes = this.#bytes
    if (count < this.#count) {
      // Cut where text `count` starts: the chunk it is in keeps the texts before it, and none after it is read.
      const places = this.#places[count >>> PLACES_BITS]!
      const offset = (count & (PLACES - 1)) * PLACE
      const chunk = places[offset]!
      const start = places[offset + 1]!
      const kept = start === 0 ? chunk : chunk + 1
      chunks = chunks.slice(0, kept)
      filled = filled.slice(0, kept)
      if (start > 0) filled[chunk] = start
      bytes = filled.reduce((sum, used) => sum + used, 0)
    } else {
      chunks = chunks.slice()
      filled = filled.slice()
    }
    return {
      bytes: Math.max(0, bytes - 1),
      *pieces() {
        for (let i = 0; i < chunks.length; i++) yield chunks[i]!.subarray(0, filled[i]! - 1) // its last comma left out
      },
    }
  }
}

/** The pieces of a {@link ArenaView} joined by commas: every text of the view joined by commas, a piece at a time. */
export function* joinedPieces(pieces: Iterator<Buffer>): Generator<string | Buffer> {
  for (let next = pieces.next(), first = true; !next.done; next = pieces.next(), first = false) {
    if (!first) yield ','
    yield next.value
  }
}
