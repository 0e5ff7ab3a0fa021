#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether an Ogg file ends the way a complete Ogg stream does: with a whole page that carries
/// the end-of-stream flag (RFC 3533, §6: `header_type` bit 0x04 on the last page of a logical
/// stream). FFmpeg's Ogg demuxer takes a file cut short as a shorter stream, and the duration it
/// reads from the last granule position is then the truncated one, so this is how a truncated
/// Vorbis or Opus file is noticed.
enum OggEnd {
    /// The largest Ogg page: 27 header bytes, 255 lacing values, 255 × 255 body bytes.
    static let maximumPageSize = 27 + 255 + 255 * 255

    /// True when `tail`, the last bytes of a file (at least ``maximumPageSize`` of them, or the
    /// whole file), ends with a complete page flagged end-of-stream. Any bytes are safe.
    static func endsWithEndOfStream(_ tail: [UInt8]) -> Bool {
        let n = tail.count
        var p = n - 27
        while p >= 0 {
            if tail[p] == 0x4F, tail[p + 1] == 0x67, tail[p + 2] == 0x67, tail[p + 3] == 0x53, tail[p + 4] == 0 {
                let segments = Int(tail[p + 26])
                if p + 27 + segments <= n {
                    var body = 0
                    for k in 0..<segments { body += Int(tail[p + 27 + k]) }
                    if p + 27 + segments + body == n { return tail[p + 5] & 0x04 != 0 }
                }
            }
            p -= 1
        }
        return false
    }

    /// Reads the tail of the regular file at `path` and checks it; nil when it cannot be read.
    static func fileEndsWithEndOfStream(path: String) -> Bool? {
        let fd = open(FilePath.cString(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        let count = Int(min(Int64(maximumPageSize), Int64(info.st_size)))
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(Int64(info.st_size) - Int64(count))) }
        guard got == count else { return nil }
        return endsWithEndOfStream(buffer)
    }
}
