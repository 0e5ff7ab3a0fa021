import Foundation

/// Tags over a batch (`cadenza analyze --write-tags`, `--album`): each analysed file is tagged
/// through ``TagWriter`` before its report is written, so the report records the tagged file's
/// stamp; a kept report of a resumed batch has its file tagged when the file lacks the tags
/// (tagging failed last time, or tags are new to the folder); and with albums, the ReplayGain 2.0
/// album gain and peak of each folder's tracks together (``AlbumLoudness``) go into every track
/// of the folder once its last track is done.
///
/// The batch calls ``tag(_:)`` before it writes each report (``BatchJob``'s `beforeWriting`),
/// ``tagKept(_:reportPath:sink:)`` for each input whose report it keeps, and ``finish(reportPath:sink:)``
/// once it is done. A failure never stops the batch: it is counted (``failures``) and its message
/// kept until ``takeFailure(_:)`` or ``finish(reportPath:sink:)`` hands it over.
public final class BatchTagger: Sendable {
    /// How keys are written (`--key-notation`).
    public let keyNotation: TagWriter.KeyNotation
    /// The peak written with the gains (`--true-peak`).
    public let peak: TagWriter.PeakKind
    private struct State {
        var failures = 0
        var messages: [String: String] = [:]
        var cancelled = false
        var albums: AlbumTagger?
    }
    private let state = Locked(State())

    /// A tagger for a batch; ``groupAlbums(_:)`` adds album gain.
    public init(keyNotation: TagWriter.KeyNotation, peak: TagWriter.PeakKind) {
        self.keyNotation = keyNotation
        self.peak = peak
    }

    /// Files that could not be tagged so far.
    public var failures: Int { state.withLock { $0.failures } }

    /// Album gain for `inputs` (the batch's inputs, each album one folder; standard input belongs
    /// to none). Call it before the batch runs.
    public func groupAlbums(_ inputs: [String]) {
        let albums = AlbumTagger(inputs: inputs, peak: peak)
        state.withLock { $0.albums = albums }
    }

    /// Stops tagging: a write in progress removes its working copy and leaves the file as it was.
    public func cancel() { state.withLock { $0.cancelled = true } }

    /// The report with the tagged file's stamp (the report as it is for an error record or a
    /// failure, whose message ``takeFailure(_:)`` hands over). The track that completes its album
    /// gets its album tags in the same write, and the album's other tracks get theirs then.
    public func tag(_ report: Report) -> Report {
        let albums = state.withLock { $0.albums }
        guard report.error == nil else {
            albums?.recordFailure(report.source.path)
            return report
        }
        return tagged(report, extraTags: albums?.record(report) ?? [:])
    }

    /// An input whose report the batch keeps (not analysed again), its report at `reportPath`:
    /// its file is tagged when it lacks the tags, the report rewritten through `sink` with the new
    /// stamp, and the track counted in its album. The messages to show: a failed tagging, a report
    /// that could not be rewritten.
    public func tagKept(_ input: String, reportPath: String?, sink: ReportSink) -> [String] {
        var messages: [String] = []
        var kept = reportPath.flatMap(Self.readReport)
        if let report = kept, let reportPath, report.error == nil {
            let result = tagged(report, extraTags: [:])
            if result.source.modified != report.source.modified || result.source.size != report.source.size {
                kept = result
                do throws(ReportSink.WriteError) { try sink.write(result, reportPath: reportPath) } catch {
                    messages.append(
                        "error: \(TerminalText.escapingControlCharacters(input)): cannot update its report after tagging: \(TerminalText.escapingControlCharacters(error.description))"
                    )
                }
            }
        }
        if let failure = takeFailure(input) { messages.append("error: \(TerminalText.escapingControlCharacters(failure))") }
        // Tracks whose report is kept still belong to their album: their loudness is read from the
        // kept report, else their album is left untagged.
        state.withLock { $0.albums }?.recordKept(input, report: kept)
        return messages
    }

    /// The failure to tag `path`, once.
    public func takeFailure(_ path: String) -> String? { state.withLock { $0.messages.removeValue(forKey: path) } }

    /// Ends the batch: the reports of tracks that got their album tags after their report was
    /// written are rewritten through `sink` with the files' new stamps (`reportPath` gives each
    /// input's report). The messages to show: albums left without album gain, and writes that failed.
    public func finish(reportPath: (String) -> String?, sink: ReportSink) -> [String] {
        guard let albums = state.withLock({ $0.albums }) else { return [] }
        var messages: [String] = []
        for input in albums.retaggedBeforeTheirReport() {
            guard let path = reportPath(input), var kept = Self.readReport(path), let stamp = FileStamp.of(path: input) else { continue }
            kept.source.size = stamp.size
            kept.source.modified = stamp.modified
            do throws(ReportSink.WriteError) { try sink.write(kept, reportPath: path) } catch {
                messages.append(
                    "error: \(TerminalText.escapingControlCharacters(input)): cannot update its report after album tagging: \(TerminalText.escapingControlCharacters(error.description))"
                )
            }
        }
        return messages + albums.messages()
    }

    private func tagged(_ report: Report, extraTags: [String: String]) -> Report {
        let state = self.state
        do throws(TagWriteError) {
            return try TagWriter().tag(
                report, keyNotation: keyNotation, peak: peak, extraTags: extraTags, isCancelled: { state.withLock { $0.cancelled } })
        } catch {
            state.withLock {
                $0.failures += 1
                $0.messages[report.source.path] = error.description
            }
            return report
        }
    }

    /// A report file read back; `nil` when it cannot be read (``Report/read(file:)``).
    static func readReport(_ path: String) -> Report? { Report.read(file: path)?.report }
}

/// Album gain, one album per folder (the folder of each input).
///
/// Each album collects its tracks' loudness (``AlbumLoudness``: the gating blocks of all tracks
/// together) as they finish. The track that completes the album is tagged with its album tags
/// in the same write as its track tags; the album's other tracks are tagged then, and their
/// reports, written earlier, get their new file stamp after the batch. An album with a failed
/// track (or one whose report cannot be read back) gets no album tags, and a message says why.
final class AlbumTagger: Sendable {
    private struct Album {
        var remaining: Int
        var loudness = AlbumLoudness()
        var tracks: [(path: String, codec: String?)] = []
        var failed: [String] = []

        /// Counts the track at `path` with its report's loudness, or as failed when the report is
        /// missing, an error record, or without loudness the album can use.
        mutating func add(_ report: Report?, path: String) {
            guard let report, report.error == nil, let loudness = report.result?.loudness, self.loudness.add(loudness) else {
                failed.append(path)
                return
            }
            tracks.append((path, report.source.codec))
        }
    }
    private struct State {
        var albums: [String: Album] = [:]
        var retagged: [String] = []
        var messages: [String] = []
    }
    let peak: TagWriter.PeakKind
    private let state: Locked<State>

    /// Albums of `inputs`, grouped by folder (standard input belongs to none).
    init(inputs: [String], peak: TagWriter.PeakKind) {
        self.peak = peak
        var albums: [String: Album] = [:]
        for input in inputs where input != "-" {
            albums[Self.folder(of: input), default: Album(remaining: 0)].remaining += 1
        }
        state = Locked(State(albums: albums))
    }

    static func folder(of path: String) -> String { (path as NSString).deletingLastPathComponent }

    /// A track that could not be analysed: its album gets no album tags.
    func recordFailure(_ path: String) {
        _ = finish(path) { album in album.failed.append(path) }
    }

    /// A track whose report was kept (not analysed again), with that report when it could be read.
    func recordKept(_ path: String, report: Report?) {
        let tags = finish(path) { $0.add(report, path: path) }
        if !tags.isEmpty { writeAlbumTags(tags, to: path) }
    }

    /// An analysed track, before its tags are written: the album tags for it when it completes
    /// its album (the other tracks are tagged now), else none.
    func record(_ report: Report) -> [String: String] {
        let path = report.source.path
        return finish(path) { $0.add(report, path: path) }
    }

    /// Counts one track of `path`'s album through `update`; when it was the album's last, tags the
    /// album's other tracks and returns this track's album tags.
    private func finish(_ path: String, _ update: (inout Album) -> Void) -> [String: String] {
        let folder = Self.folder(of: path)
        let complete: Album? = state.withLock { s in
            guard var album = s.albums[folder] else { return nil }
            update(&album)
            album.remaining -= 1
            s.albums[folder] = album.remaining > 0 ? album : nil
            return album.remaining > 0 ? nil : album
        }
        guard let complete else { return [:] }
        guard complete.failed.isEmpty else {
            let count = complete.failed.count, total = complete.failed.count + complete.tracks.count
            let first = TerminalText.escapingControlCharacters(complete.failed[0])
            state.withLock {
                $0.messages.append(
                    "warning: no album gain for \(TerminalText.escapingControlCharacters(folder)): \(count) of \(total) tracks have no loudness (\(first)\(count > 1 ? ", ..." : ""))"
                )
            }
            return [:]
        }
        var own: [String: String] = [:]
        for track in complete.tracks {
            let tags = TagWriter.albumTags(for: complete.loudness, path: track.path, codec: track.codec, peak: peak)
            if track.path == path { own = tags } else { writeAlbumTags(tags, to: track.path) }
        }
        return own
    }

    private func writeAlbumTags(_ tags: [String: String], to path: String) {
        guard !tags.isEmpty else { return }
        do throws(TagWriteError) {
            if try TagWriter().write(tags, to: path) == .written { state.withLock { $0.retagged.append(path) } }
        } catch {
            state.withLock {
                $0.messages.append(
                    "error: \(TerminalText.escapingControlCharacters(path)): album tags not written: \(TerminalText.escapingControlCharacters(error.description))"
                )
            }
        }
    }

    /// Tracks given album tags after their report was written (their report needs the new stamp).
    func retaggedBeforeTheirReport() -> [String] { state.withLock { $0.retagged } }

    /// Warnings and errors of the album step, once the batch is done.
    func messages() -> [String] { state.withLock { $0.messages } }
}
