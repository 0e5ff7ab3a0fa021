import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The framed protocol between a batch and its worker processes, over a pair of pipes, and the
/// thin POSIX wrapper (`read`, `write`, `poll`) it needs; nothing else touches their buffers.
///
/// A frame is a 4-byte little-endian length *n*, then *n* bytes: a kind byte and its payload.
/// - batch → worker: `A` + the input path's bytes (``FilePath/bytes(of:)``): analyse it.
/// - worker → batch: `P` + 8 bytes (little-endian `Double` bits): seconds of audio decoded so far;
///   `R` + one report as its JSON line: the answer, after which the worker waits for the next `A`.
/// A worker announces it is ready with `P` 0 before its first request; it ends when its input
/// pipe closes.
enum WorkerFrame: Equatable {
    /// Analyse this path.
    case analyze(path: String)
    /// Seconds decoded so far.
    case progress(seconds: Double)
    /// The finished report, as its JSON line.
    case report(json: [UInt8])

    /// Largest frame accepted (a 24-hour file's loudness report is about 60 MB).
    static let maximumLength = 1 << 30

    /// The frame's bytes, length prefix included.
    var encoded: [UInt8] {
        var body: [UInt8]
        switch self {
        case .analyze(let path): body = [UInt8(ascii: "A")] + FilePath.bytes(of: path)
        case .progress(let seconds):
            body = [UInt8(ascii: "P")]
            let bits = seconds.bitPattern
            for k in 0..<8 { body.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        case .report(let json): body = [UInt8(ascii: "R")] + json
        }
        let n = UInt32(body.count)
        return [
            UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16),
            UInt8(truncatingIfNeeded: n >> 24),
        ] + body
    }

    /// The length prefix and kind byte of an `R` frame carrying `jsonCount` bytes of JSON: a
    /// worker writes them and then the report's JSON as it is, so that a large report (18 MB for
    /// a 3-hour file) is never copied into a frame.
    static func reportPrefix(jsonCount: Int) -> [UInt8] {
        let n = UInt32(truncatingIfNeeded: jsonCount + 1)
        return [
            UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16),
            UInt8(truncatingIfNeeded: n >> 24), UInt8(ascii: "R"),
        ]
    }

    /// Why bytes could not be read as frames.
    enum ProtocolError: Error, Equatable {
        /// A length over ``WorkerFrame/maximumLength``, an empty frame or an unknown kind.
        case malformed(String)
    }

    /// Takes every complete frame off the front of `buffer`, leaving a partial one in place.
    /// Any bytes are safe (a fuzz target feeds it random data).
    static func parse(_ buffer: inout [UInt8]) throws(ProtocolError) -> [WorkerFrame] {
        var frames: [WorkerFrame] = []
        var start = 0
        while buffer.count - start >= 4 {
            let n = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
            guard n >= 1, n <= maximumLength else { throw .malformed("frame length \(n)") }
            guard buffer.count - start - 4 >= n else { break }
            if buffer[start + 4] == UInt8(ascii: "R") && start == 0 && 4 + n == buffer.count {
                // The buffer is exactly one report (as when a worker answers): hand it over
                // without copying it (a 3-hour file's report is 18 MB).
                var json: [UInt8] = []
                swap(&json, &buffer)
                json.removeFirst(5)
                frames.append(.report(json: json))
                return frames
            }
            let body = buffer[(start + 4)..<(start + 4 + n)]
            let payload = body.dropFirst()
            switch body.first {
            case UInt8(ascii: "A"): frames.append(.analyze(path: FilePath.string(fromBytes: payload)))
            case UInt8(ascii: "P"):
                guard payload.count == 8 else { throw .malformed("progress frame of \(payload.count) bytes") }
                var bits: UInt64 = 0
                for (k, byte) in payload.enumerated() { bits |= UInt64(byte) << (8 * UInt64(k)) }
                frames.append(.progress(seconds: Double(bitPattern: bits)))
            case UInt8(ascii: "R"): frames.append(.report(json: Array(payload)))
            default: throw .malformed("frame kind \(body.first.map { String($0) } ?? "none")")
            }
            start += 4 + n
        }
        // An emptied buffer is replaced, not kept: after a large report it would hold its capacity.
        if start == buffer.count { buffer = [] } else if start > 0 { buffer.removeFirst(start) }
        return frames
    }
}

/// Blocking reads and writes on pipe descriptors.
enum PipeIO {
    /// Writes all of `bytes`; false when the pipe is closed or broken.
    static func write(_ fd: Int32, _ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return false }
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    /// Outcome of ``read(_:into:timeoutMilliseconds:)``.
    enum ReadResult: Equatable {
        /// Bytes were appended.
        case data
        /// Nothing arrived within the timeout.
        case timeout
        /// The other end closed the pipe (or it failed).
        case endOfFile
    }

    /// Waits up to `timeoutMilliseconds` for data and appends what one `read` returns.
    static func read(_ fd: Int32, into buffer: inout [UInt8], timeoutMilliseconds: Int32) -> ReadResult {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 1, timeoutMilliseconds)
        if ready == 0 || (ready < 0 && errno == EINTR) { return .timeout }
        guard ready > 0 else { return .endOfFile }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return Glibc.read(fd, base, raw.count)
        }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return .timeout }
        guard n > 0 else { return .endOfFile }
        buffer.append(contentsOf: chunk[0..<n])
        return .data
    }

    /// Blocks until at least one frame is complete; nil at end of file or on a malformed stream.
    static func readFrames(_ fd: Int32, buffer: inout [UInt8]) -> [WorkerFrame]? {
        while true {
            do {
                let frames = try WorkerFrame.parse(&buffer)
                if !frames.isEmpty { return frames }
            } catch {
                return nil
            }
            if read(fd, into: &buffer, timeoutMilliseconds: -1) == .endOfFile { return nil }
        }
    }
}
