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
    /// Size the `data` chunk claims, in bytes (nil for a streamed or unsized chunk).
    var declaredDataBytes: UInt64?
    /// Bytes of the `data` chunk actually present in the file.
    var availableDataBytes: UInt64 = 0

    /// True when the `data` chunk claims more than the file holds.
    var overclaims: Bool {
        guard let declared = declaredDataBytes else { return false }
        return declared > availableDataBytes
    }

    /// Reads the header of the file at `path`; nil when it is not a WAVE file.
    init?(path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 12 else { return nil }
        let fileSize = UInt64(info.st_size)
        func bytes(at offset: UInt64, _ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return got == count ? buffer : nil
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
                channels = Int(le16(body, 2))
                sampleRate = le32(body, 4)
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
