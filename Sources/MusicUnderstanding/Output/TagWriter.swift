import CTagWriter
import Foundation

/// Why tags could not be written. The audio file is untouched in every case.
public enum TagWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a regular file, or standard input.
    case notAFile(path: String)
    /// The file (or its folder) may not be written.
    case readOnly(path: String)
    /// TagLib cannot read or tag the file (unknown format, damaged tags).
    case notTaggable(path: String, reason: String)
    /// The working copy could not be made (e.g. the disk is full).
    case copyFailed(path: String, reason: String)
    /// TagLib failed to write the working copy.
    case writeFailed(path: String, reason: String)
    /// The tagged copy does not decode to the same audio: it was thrown away.
    case audioChanged(path: String)
    /// The tagged copy could not replace the file.
    case replaceFailed(path: String, reason: String)
    /// The file is not the one that was analysed: its size or modification time differs from the
    /// report's `source` stamp, or it was replaced (another inode) while it was being tagged.
    case changedSinceAnalysis(path: String)
    /// Tagging was interrupted (the batch was cancelled); the working copy was removed.
    case cancelled(path: String)

    public var description: String {
        switch self {
        case .notAFile(let p): "\(p): not a regular file; tags not written"
        case .readOnly(let p): "\(p): read-only; tags not written"
        case .notTaggable(let p, let r): "\(p): cannot tag: \(r)"
        case .copyFailed(let p, let r): "\(p): cannot make the working copy for tagging: \(r); file untouched"
        case .writeFailed(let p, let r): "\(p): tagging failed: \(r); file untouched"
        case .audioChanged(let p): "\(p): the tagged copy did not decode to the same audio; file untouched"
        case .replaceFailed(let p, let r): "\(p): cannot replace the file with the tagged copy: \(r); file untouched"
        case .changedSinceAnalysis(let p): "\(p): the file changed after it was analysed; tags not written (analyse it again)"
        case .cancelled(let p): "\(p): tagging interrupted; file untouched"
        }
    }
}

/// Writes BPM, initial key and ReplayGain tags into audio files without risking the audio.
///
/// Fields (through TagLib's property map, so each format gets its native frames):
/// - `BPM`: the tempo rounded to an integer — ID3 `TBPM`, Vorbis/FLAC `BPM`, MP4 `tmpo`.
/// - `INITIALKEY`: the main key, `Am`/`F#`/`Ebm` (ID3v2.4 `TKEY` notation) or its Camelot code
///   (`8A`) — ID3 `TKEY`, Vorbis/FLAC `INITIALKEY`, MP4 freeform `----:com.apple.iTunes:INITIALKEY`
///   (TagLib has no MP4 mapping for the key, so the property name is kept as written).
/// - ReplayGain 2.0 track values (reference −18 LUFS, as rsgain and loudgain write them):
///   `REPLAYGAIN_TRACK_GAIN` = −18 − integrated loudness, `"-6.53 dB"`,
///   `REPLAYGAIN_TRACK_PEAK` = the sample peak as a linear amplitude, `"0.988553"` (the true peak
///   with ``PeakKind/truePeak``, as rsgain's `--true-peak` does), and
///   `REPLAYGAIN_REFERENCE_LOUDNESS` = `"-18.00 LUFS"` — ID3 `TXXX`, Vorbis/FLAC comments, MP4
///   freeform atoms.
/// - Opus instead: `R128_TRACK_GAIN` = round(256 · (−23 − integrated loudness)), a Q7.8
///   integer relative to the EBU R128 reference −23 LUFS (RFC 7845 §5.2.1); `REPLAYGAIN_*` are
///   removed, as RFC 7845 asks. The header output gain is left alone.
///
/// Safety: the file is copied beside itself (same folder, so the rename is atomic), TagLib saves
/// the copy, the copy is decoded and compared with the original sample for sample (``verifiesAudio``),
/// its tags are read back, it gets the original's permissions and owner, is flushed to disk and
/// renamed over the original. Any failure removes the copy and leaves the original as it was; a
/// file whose tags already hold the values is not rewritten at all. Symbolic links are followed
/// (the target is replaced); a hard-linked file gets a new inode (its other names keep the old
/// contents). Files without write permission are refused, also for root.
public struct TagWriter: Sendable {
    /// Which notation goes into the initial-key field.
    public enum KeyNotation: String, Sendable, CaseIterable {
        /// `Am`, `F#`, `Ebm` (ID3v2.4 TKEY).
        case standard
        /// `8A`, `2B`.
        case camelot
        /// Open Key notation: `1m` (A minor), `1d` (C major), `6m` (``KeyResult/KeySignature/openKey``).
        case openkey

        /// The key in this notation.
        public func text(_ key: KeyResult.KeySignature) -> String {
            switch self {
            case .standard: key.standardNotation
            case .camelot: key.camelot
            case .openkey: key.openKey
            }
        }
    }

    /// Which peak goes into `REPLAYGAIN_TRACK_PEAK`.
    public enum PeakKind: String, Sendable, CaseIterable {
        /// The largest sample magnitude (ReplayGain 2.0's track peak; rsgain's and loudgain's default).
        case sample
        /// The true (inter-sample) peak, BS.1770-4 Annex 2.
        case truePeak = "true"
    }

    /// ReplayGain 2.0's reference loudness, LUFS: the gain brings a track to it.
    public static let replayGainReference = -18.0

    /// Whether the tagged copy is decoded and compared with the original before it replaces it.
    public var verifiesAudio = true

    /// A writer.
    public init(verifiesAudio: Bool = true) {
        self.verifiesAudio = verifiesAudio
    }

    /// The tag values a report gives for the file at `path` (an empty value removes the key).
    public static func tags(
        for report: Report, path: String, keyNotation: KeyNotation = .standard,
        peak: PeakKind = .sample
    ) -> [String: String] {
        let headline = ReportHeadline(report)
        var tags: [String: String] = [:]
        if let bpm = headline.beatsPerMinute.flatMap(ReportTime.wholeBeatsPerMinute) { tags["BPM"] = String(bpm) }
        if let key = headline.key { tags["INITIALKEY"] = keyNotation.text(key) }
        if let integrated = headline.integratedLoudness, integrated.isFinite {
            let isOpus = (path as NSString).pathExtension.lowercased() == "opus" || report.source.codec == "opus"
            if isOpus {
                let q78 = (256 * (-23 - integrated)).rounded()
                tags["R128_TRACK_GAIN"] = String(Int(min(max(q78, -32768), 32767)))
                tags["REPLAYGAIN_TRACK_GAIN"] = ""
                tags["REPLAYGAIN_TRACK_PEAK"] = ""
                tags["REPLAYGAIN_REFERENCE_LOUDNESS"] = ""
            } else {
                tags["REPLAYGAIN_TRACK_GAIN"] = String(format: "%.2f dB", replayGainReference - integrated + 0)
                tags["REPLAYGAIN_REFERENCE_LOUDNESS"] = String(format: "%.2f LUFS", replayGainReference)
                let level = peak == .sample ? headline.samplePeak : headline.truePeak
                if let level, level.isFinite {
                    tags["REPLAYGAIN_TRACK_PEAK"] = String(format: "%.6f", pow(10, level / 20))
                }
            }
        }
        return tags
    }

    /// The album tags of one track, given its album's loudness: ReplayGain 2.0
    /// `REPLAYGAIN_ALBUM_GAIN` (−18 − the album's integrated loudness) and `REPLAYGAIN_ALBUM_PEAK`
    /// (the album's largest sample peak, or true peak with ``PeakKind/truePeak``, as a linear
    /// amplitude); on Opus `R128_ALBUM_GAIN` (Q7.8 against −23 LUFS, RFC 7845 §5.2.1) instead, the
    /// `REPLAYGAIN_ALBUM_*` fields removed. Empty when the album has no measurable loudness.
    public static func albumTags(for album: AlbumLoudness, path: String, codec: String?, peak: PeakKind = .sample) -> [String: String] {
        let integrated = album.integrated
        guard integrated.isFinite else { return [:] }
        var tags: [String: String] = [:]
        if (path as NSString).pathExtension.lowercased() == "opus" || codec == "opus" {
            let q78 = (256 * (-23 - integrated)).rounded()
            tags["R128_ALBUM_GAIN"] = String(Int(min(max(q78, -32768), 32767)))
            tags["REPLAYGAIN_ALBUM_GAIN"] = ""
            tags["REPLAYGAIN_ALBUM_PEAK"] = ""
        } else {
            tags["REPLAYGAIN_ALBUM_GAIN"] = String(format: "%.2f dB", replayGainReference - integrated + 0)
            let level = peak == .sample ? album.samplePeak : album.truePeak
            if level.isFinite { tags["REPLAYGAIN_ALBUM_PEAK"] = String(format: "%.6f", pow(10, level / 20)) }
        }
        return tags
    }

    /// What a write did.
    public enum Outcome: Sendable, Equatable {
        /// The file was replaced by a copy holding the tags.
        case written
        /// The tags already held these values; the file was not touched.
        case unchanged
    }

    /// The tag properties of `path` as TagLib reads them (`KEY` → value, several values joined by
    /// `;`); MP4 freeform atoms also appear as `MP4:name`, the tempo atom as `MP4:tmpo`.
    public static func read(_ path: String) throws(TagWriteError) -> [String: String] {
        var size = 64 * 1024
        while true {
            var out = [CChar](repeating: 0, count: size)
            var error = [CChar](repeating: 0, count: 512)
            let needed = out.withUnsafeMutableBufferPointer { o in
                error.withUnsafeMutableBufferPointer { e in
                    cadenza_tags_read(FilePath.cString(path), o.baseAddress, o.count, e.baseAddress, e.count)
                }
            }
            if needed < 0 { throw .notTaggable(path: path, reason: Self.string(error)) }
            if needed >= size {
                size = needed + 1
                continue
            }
            var map: [String: String] = [:]
            for line in Self.string(out).split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                map[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            return map
        }
    }

    /// Whether `existing` (as ``read(_:)`` gives it) already holds `tags`.
    public static func holds(_ existing: [String: String], _ tags: [String: String]) -> Bool {
        tags.allSatisfy { key, value in
            let current = existing[key] ?? existing["MP4:\(key)"] ?? existing["MP4:\(key.lowercased())"]
            return value.isEmpty ? current == nil : current == value
        }
    }

    /// Writes `tags` into the file at `path` safely (see the type's documentation).
    ///
    /// - Parameters:
    ///   - expected: when given, the file must still have this stamp (the one its analysis saw),
    ///     and must still be the same file (inode) just before the tagged copy replaces it;
    ///     otherwise ``TagWriteError/changedSinceAnalysis(path:)`` and the file is left alone.
    ///   - isCancelled: polled between the steps and while the copy is verified; when it turns
    ///     true the copy is removed and ``TagWriteError/cancelled(path:)`` thrown.
    @discardableResult
    public func write(
        _ tags: [String: String], to path: String, expected: FileStamp? = nil,
        isCancelled: @Sendable () -> Bool = { false }
    ) throws(TagWriteError) -> Outcome {
        guard path != "-", let real = Self.resolved(path) else { throw .notAFile(path: path) }
        var info = stat()
        guard stat(FilePath.cString(real), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(path: path) }
        let folder = (real as NSString).deletingLastPathComponent
        let name = (real as NSString).lastPathComponent
        Self.removeAbandonedCopies(of: name, in: folder)
        if let expected, FileStamp(info) != expected { throw .changedSinceAnalysis(path: path) }
        if info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH) == 0 || access(FilePath.cString(real), W_OK) != 0 || access(FilePath.cString(folder), W_OK | X_OK) != 0
        {
            throw .readOnly(path: path)
        }
        if Self.holds(try Self.read(real), tags) { return .unchanged }

        let ext = (name as NSString).pathExtension
        let temporary = folder + "/" + Self.copyPrefix(of: name) + "\(getpid())" + (ext.isEmpty ? "" : ".\(ext)")
        do {
            if isCancelled() { throw TagWriteError.cancelled(path: path) }
            try Self.copy(real, to: temporary, mode: info.st_mode & 0o7777)
            let assignments = tags.keys.sorted().map { "\($0)=\(tags[$0] ?? "")" }.joined(separator: "\n")
            var error = [CChar](repeating: 0, count: 512)
            let status = error.withUnsafeMutableBufferPointer { e in cadenza_tags_write(FilePath.cString(temporary), assignments, e.baseAddress, e.count) }
            if status != 0 { throw TagWriteError.writeFailed(path: path, reason: Self.string(error)) }
            guard Self.holds(try Self.read(temporary), tags) else {
                throw TagWriteError.writeFailed(path: path, reason: "the tags did not read back")
            }
            if isCancelled() { throw TagWriteError.cancelled(path: path) }
            if verifiesAudio {
                let before = AudioFingerprint(path: real, isCancelled: isCancelled)
                let after = before == nil ? nil : AudioFingerprint(path: temporary, isCancelled: isCancelled)
                if isCancelled() { throw TagWriteError.cancelled(path: path) }
                guard let before, let after, before == after else { throw TagWriteError.audioChanged(path: path) }
            }
            _ = chown(FilePath.cString(temporary), info.st_uid, info.st_gid)  // as the owner may; ignored otherwise
            _ = chmod(FilePath.cString(temporary), info.st_mode & 0o7777)
            if let failure = Self.sync(temporary) { throw TagWriteError.replaceFailed(path: path, reason: failure) }
            if isCancelled() { throw TagWriteError.cancelled(path: path) }
            // Still the file that was copied (not renamed over meanwhile, not rewritten)?
            var now = stat()
            guard stat(FilePath.cString(real), &now) == 0, now.st_ino == info.st_ino, now.st_dev == info.st_dev, FileStamp(now) == FileStamp(info) else {
                throw TagWriteError.changedSinceAnalysis(path: path)
            }
            if rename(FilePath.cString(temporary), FilePath.cString(real)) != 0 {
                throw TagWriteError.replaceFailed(path: path, reason: String(cString: strerror(errno)))
            }
            _ = Self.sync(folder)
            return .written
        } catch let error as TagWriteError {
            unlink(FilePath.cString(temporary))
            throw error
        } catch {
            unlink(FilePath.cString(temporary))
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    // MARK: - Files

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The start of a working copy's name: `.NAME.cadenza-tags-` (then the writer's process id).
    static func copyPrefix(of name: String) -> String { ".\(name).cadenza-tags-" }

    /// Removes working copies of `name` in `folder` left by a tagging process that no longer runs
    /// (killed with SIGKILL or by a power cut while it tagged): `.NAME.cadenza-tags-PID[.EXT]`
    /// whose PID is not a running process. Copies of running processes are left alone.
    static func removeAbandonedCopies(of name: String, in folder: String) {
        let prefix = copyPrefix(of: name)
        guard let entries = try? FilePath.contentsOfDirectory(folder).get() else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let pid = pid_t(digits) else { continue }
            let tail = rest.dropFirst(digits.count)
            let ext = (name as NSString).pathExtension
            guard tail.isEmpty || tail == "." + ext else { continue }
            if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { unlink(FilePath.cString(folder + "/" + entry)) }
        }
    }

    /// The path with symbolic links resolved, or `nil` when it does not exist.
    private static func resolved(_ path: String) -> String? {
        // realpath(3) on the raw bytes, so a name that is not UTF-8 is found (FilePath escapes).
        guard let real = realpath(FilePath.cString(path), nil) else { return nil }
        defer { free(real) }
        return FilePath.string(fromBytes: UnsafeBufferPointer(start: real, count: strlen(real)).map { UInt8(bitPattern: $0) })
    }

    /// Copies `source` to a new file `target` (which must not exist) in 1 MiB chunks and flushes it.
    private static func copy(_ source: String, to target: String, mode: mode_t) throws(TagWriteError) {
        let input = open(FilePath.cString(source), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .copyFailed(path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        let output = open(FilePath.cString(target), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw .copyFailed(path: source, reason: String(cString: strerror(errno))) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .copyFailed(path: source, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress.map { $0 + written }, n - written) }
                if w < 0 {
                    if errno == EINTR { continue }
                    throw .copyFailed(path: source, reason: String(cString: strerror(errno)))
                }
                written += w
            }
        }
        if fsync(output) != 0 { throw .copyFailed(path: source, reason: String(cString: strerror(errno))) }
    }

    /// `fsync` of a file or folder; the reason when it fails.
    private static func sync(_ path: String) -> String? {
        let fd = open(FilePath.cString(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        return fsync(fd) == 0 ? nil : String(cString: strerror(errno))
    }
}

/// The decoded audio of a file reduced to a comparable value: sample rate, channels, frame count
/// and a 64-bit FNV-1a hash of every decoded sample's bit pattern (and the decoder's damage note).
public struct AudioFingerprint: Sendable, Hashable {
    /// Native sample rate.
    public var sampleRate: Int
    /// Channel count.
    public var channels: Int
    /// Samples decoded (all channels).
    public var samples: Int
    /// FNV-1a over the samples' IEEE bit patterns.
    public var hash: UInt64
    /// The decoder's note on damage, if any.
    public var damage: String?

    /// Decodes `path` with the project's decoder; `nil` when it does not decode, or when
    /// `isCancelled` turns true (polled at every decoded buffer).
    public init?(path: String, isCancelled: () -> Bool = { false }) {
        guard let decoder = try? AudioDecoder(path: path) else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var count = 0
        do {
            while let buffer = try decoder.read() {
                if isCancelled() { return nil }
                for sample in buffer.samples {
                    var bits = sample.bitPattern
                    for _ in 0..<4 {
                        hash = (hash ^ UInt64(bits & 0xFF)) &* 0x0000_0100_0000_01B3
                        bits >>= 8
                    }
                }
                count += buffer.samples.count
            }
        } catch {
            return nil
        }
        sampleRate = decoder.sampleRate
        channels = decoder.channels.count
        samples = count
        self.hash = hash
        damage = decoder.damageNote
    }
}

extension TagWriter {
    /// Writes the tags of `report` (``tags(for:path:keyNotation:)``) into its input file and
    /// returns the report with the file's size and modification time after tagging in `source`,
    /// so that a resumed batch finds the tagged file's report current (tagging changes only the
    /// tags: ``verifiesAudio`` checks that the decoded audio is the same).
    ///
    /// Only the file that was analysed is tagged: when the report records a stamp
    /// (`source.size`, `source.modified`) the file must still have it, and must not be replaced
    /// while it is tagged; otherwise ``TagWriteError/changedSinceAnalysis(path:)``, the file
    /// untouched. When the tags were already there (``Outcome/unchanged``) the report is returned
    /// as it is.
    public func tag(
        _ report: Report, keyNotation: KeyNotation = .standard, peak: PeakKind = .sample,
        extraTags: [String: String] = [:], isCancelled: @Sendable () -> Bool = { false }
    ) throws(TagWriteError) -> Report {
        let path = report.source.path
        let expected = report.source.size.flatMap { size in report.source.modified.map { FileStamp(size: size, modified: $0) } }
        let tags = Self.tags(for: report, path: path, keyNotation: keyNotation, peak: peak).merging(extraTags) { $1 }
        let outcome = try write(tags, to: path, expected: expected, isCancelled: isCancelled)
        guard outcome == .written, expected != nil, let after = FileStamp.of(path: path) else { return report }
        var tagged = report
        tagged.source.size = after.size
        tagged.source.modified = after.modified
        return tagged
    }
}
