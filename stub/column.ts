/**
 * A list that grows a chunk at a time, for the store's columns that grow with every create (the ids in order, the
 * positions of each status). As one array each, every growth would copy the whole column into new memory; on a virtual
 * machine the system hands each new page of memory over at a cost (a page fault of 10 µs or more per 4 KiB seen here),
 * so a store of a few hundred thousand pets paid for its columns several times over, a little on every create. Chunks
 * are filled once and never copied: a column touches only the memory its values take.
 */

/** Values per chunk: a power of 2, so that a position splits into chunk and offset with a shift and a mask. */
const CHUNK_BITS = 12
const CHUNK = 1 << CHUNK_BITS
const OFFSET = CHUNK - 1

export class Column<T> {
  readonly #chunks: T[][] = []
  #length = 0

  /** How many values it holds. */
  get length(): number {
    return this.#length
  }

  /** Appends a value; returns its position. */
  push(value: T): number {
    const at = this.#length
    if ((at & OFFSET) === 0) this.#chunks.push([value])
    else this.#chunks[at >>> CHUNK_BITS]!.push(value)
    this.#length = at + 1
    return at
  }

  /** The value at a position (below {@link length}). */
  at(position: number): T {
    return this.#chunks[position >>> CHUNK_BITS]![position & OFFSET]!
  }

  /** The last value, or `undefined` when it holds none. */
  last(): T | undefined {
    return this.#length === 0 ? undefined : this.at(this.#length - 1)
  }

  /** Drops every value from position `length` on. */
  truncate(length: number): void {
    if (length >= this.#length) return
    this.#chunks.length = (length + OFFSET) >>> CHUNK_BITS
    if ((length & OFFSET) !== 0) this.#chunks[length >>> CHUNK_BITS]!.length = length & OFFSET
    this.#length = length
  }
}
