#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few facts of a RIFF/RF64 WAVE header that FFmpeg does not pass on: what the `fmt `
/// chunk declares (FFmpeg rejects an absurd rate with a bare "invalid data") and how many
/// bytes the `data` chunk claims (FFmpeg silently clamps a claim beyond the end of the file).
struct WAVHeader {
    /// Channel count declared by the `fmt ` chunk.
    var channels: Int?
    /// Sample rate declared by the `fmt ` chunk.
    var sampleRate: UInt64?
    /// Format tag of the `fmt ` chunk (1 PCM, 3 float, 0xFFFE extensible, ...).
    var formatTag: UInt64?
    /// Bits per sample declared by the `fmt ` chunk.
    var bitsPerSample: UInt64?
    /// Size the `data` chunk claims, in bytes (nil for a streamed or unsized chunk).
    var declaredDataBytes: UInt64?
    /// Bytes of the `data` chunk actually present in the file.
    var availableDataBytes: UInt64 = 0

    /// True when the `data` chunk claims more than the file holds.
    var overclaims: Bool {
        guard let declared = declaredDataBytes else { return false }
        return declared > availableDataBytes
    }

    /// What makes the header unusable, in words (a sample rate or channel count out of range,
    /// no bits per sample for PCM); nil when it looks sane.
    var problem: String? {
        if let rate = sampleRate, !(UInt64(FFmpeg.minimumSampleRate)...UInt64(FFmpeg.maximumSampleRate)).contains(rate) {
            return "the WAV header declares a sample rate of \(rate) Hz, outside \(FFmpeg.sampleRateText)"
        }
        if let count = channels, !(1...FFmpeg.maximumChannelCount).contains(count) {
            return "the WAV header declares \(count) channels, outside 1...\(FFmpeg.maximumChannelCount)"
        }
        if let bits = bitsPerSample, bits == 0, let tag = formatTag, [1, 3, 0xFFFE].contains(tag) {
            return "the WAV header declares 0 bits per sample"
        }
        return nil
    }

    /// Reads the header of the file at `path`; nil when it is not a regular WAVE file (a named
    /// pipe or device is not opened for reading: that could block).
    init?(path: String) {
        let fd = open(FilePath.cString(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 12 else { return nil }
        self.init(size: UInt64(info.st_size)) { offset, count in
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return got == count ? buffer : nil
        }
    }

    /// Parses a header from `read(offset, count)` (nil past the end) of a file of `size` bytes;
    /// nil when it is not a WAVE file. Any bytes are safe (a fuzz target feeds it random data).
    init?(size fileSize: UInt64, reader read: (_ offset: UInt64, _ count: Int) -> [UInt8]?) {
        guard fileSize > 12 else { return nil }
        func bytes(at offset: UInt64, _ count: Int) -> [UInt8]? {
            guard let got = read(offset, count), got.count == count else { return nil }
            return got
        }
        func le16(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(b[i]) | UInt64(b[i + 1]) << 8 }
        func le32(_ b: [UInt8], _ i: Int) -> UInt64 { le16(b, i) | le16(b, i + 2) << 16 }
        guard let header = bytes(at: 0, 12) else { return nil }
        let riff = String(decoding: header[0..<4], as: UTF8.self)
        guard riff == "RIFF" || riff == "RF64", String(decoding: header[8..<12], as: UTF8.self) == "WAVE" else { return nil }
        var ds64DataSize: UInt64?
        var offset: UInt64 = 12
        for _ in 0..<64 {  // a WAV has a handful of chunks before `data`
            guard offset + 8 <= fileSize, let chunk = bytes(at: offset, 8) else { break }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let size = le32(chunk, 4)
            if id == "ds64", let body = bytes(at: offset + 8, 16) {
                ds64DataSize = le32(body, 8) | le32(body, 12) << 32
            } else if id == "fmt ", let body = bytes(at: offset + 8, 8) {
                formatTag = le16(body, 0)
                channels = Int(le16(body, 2))
                sampleRate = le32(body, 4)
                if size >= 16, let rest = bytes(at: offset + 8, 16) { bitsPerSample = le16(rest, 14) }
            } else if id == "data" {
                availableDataBytes = fileSize - (offset + 8)
                if size == 0xFFFF_FFFF {
                    declaredDataBytes = ds64DataSize
                } else if size > 0 {
                    declaredDataBytes = size
                }
                break
            }
            offset += 8 + size + (size & 1)
        }
    }
}
