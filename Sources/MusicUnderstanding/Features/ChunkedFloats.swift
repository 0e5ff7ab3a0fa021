/// An append-only sequence of `Float`s kept in fixed-size chunks, for the per-frame features an
/// accumulator collects while the audio streams in.
///
/// An `Array` that outgrows its capacity copies its values into a buffer twice the size, so for
/// a moment it holds them twice: for the 36-bin chroma blocks of a 3-hour input that is 34 MB
/// more, and the five onset curves, which grow in step, double together. Chunks never move what
/// they hold; ``takeArray(capacity:)`` hands the values over as one array at the end, freeing each
/// chunk as soon as it is copied, so the peak is the values plus one chunk.
struct ChunkedFloats {
    /// Values per chunk.
    let chunkSize: Int
    private var chunks: [[Float]] = []
    /// Number of values.
    private(set) var count = 0

    /// An empty sequence with chunks of `chunkSize` values (256 KB by default).
    init(chunkSize: Int = 1 << 16) {
        self.chunkSize = max(1, chunkSize)
    }

    private mutating func startChunk() {
        var chunk: [Float] = []
        chunk.reserveCapacity(chunkSize)
        chunks.append(chunk)
    }

    /// Appends one value.
    mutating func append(_ value: Float) {
        if count % chunkSize == 0 { startChunk() }
        chunks[chunks.count - 1].append(value)
        count += 1
    }

    /// Appends values in order.
    mutating func append<C: Collection>(contentsOf values: C) where C.Element == Float {
        for value in values { append(value) }
    }

    /// The values of each chunk in order, each chunk freed once `body` has seen it; the sequence
    /// is empty afterwards.
    mutating func consumeChunks(_ body: ([Float]) throws -> Void) rethrows {
        var taken: [[Float]] = []
        swap(&taken, &chunks)
        count = 0
        for index in taken.indices {
            try body(taken[index])
            taken[index] = []
        }
    }

    /// All values as one array with room for at least `capacity` values; the sequence is empty
    /// afterwards.
    mutating func takeArray(capacity: Int = 0) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(max(count, capacity))
        consumeChunks { out.append(contentsOf: $0) }
        return out
    }
}
