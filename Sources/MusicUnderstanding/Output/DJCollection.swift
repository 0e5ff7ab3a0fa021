import Foundation

/// Collections for DJ software: a rekordbox collection XML and a Traktor NML, each listing
/// tracks with tempo, key, beat grid and cue points at section starts. Both import as a
/// collection (rekordbox: Preferences ▸ Advanced ▸ Database ▸ rekordbox xml, then the "rekordbox
/// xml" tree ▸ Import to Collection; Traktor: Collection ▸ Import Another Collection).
public enum DJCollection {
    /// A track's location in the collection: its path made absolute against the current folder
    /// (nil for standard input).
    public static func absolutePath(_ report: Report) -> String? {
        let path = report.source.path
        guard path != "-" else { return nil }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }

    /// The key as `notation` writes it.
    public static func keyText(_ key: KeyResult.KeySignature, notation: TagWriter.KeyNotation) -> String {
        notation.text(key)
    }

    /// Cue names of a report: one per section start (`A verse`), in time order, each with its
    /// hot-cue slot (0, 1, ...) among the sections of the music; the silence before and after the
    /// music (function `silence`) is a cue on no slot, so the few hot cues go to the music.
    static func sectionCues(_ result: SessionResult) -> [(label: LabelTracks.Label, hotCue: Int?)] {
        let labels = LabelTracks.labels(.sections, of: result)
        var slot = 0
        var out: [(label: LabelTracks.Label, hotCue: Int?)] = []
        for (i, label) in labels.enumerated() where ReportTime.isWritable(label.start) {
            if result.structure?.function(ofSection: i) == .silence {
                out.append((label, nil))
            } else {
                out.append((label, slot))
                slot += 1
            }
        }
        return out
    }

    /// `%.3f` of seconds (negative zero written as 0).
    static func seconds(_ value: Double) -> String { String(format: "%.3f", value + 0) }

    // MARK: rekordbox

    /// One beat-grid anchor of the rekordbox `TEMPO` list.
    public struct GridAnchor: Sendable, Hashable {
        /// Seconds (`Inizio`).
        public var start: Double
        /// Tempo from here (`Bpm`).
        public var beatsPerMinute: Double
        /// The anchor's position in its bar, 1 the downbeat (`Battito`).
        public var beatInBar: Int
    }

    /// The beat grid as rekordbox's `TEMPO` entries: one anchor per bar line, with the tempo of
    /// that bar (its beats over its length), so a tempo that drifts keeps the grid on the beats;
    /// beats before the first bar line (a pickup) get an anchor at the first beat counted back
    /// from the bar. Without bars one anchor at the first beat with the global tempo.
    public static func gridAnchors(_ rhythm: RhythmResult) -> [GridAnchor] {
        let beats = rhythm.beats.filter(ReportTime.isWritable), bars = rhythm.bars.filter(ReportTime.isWritable)
        let global = rhythm.beatsPerMinute.map(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        guard let firstBeat = beats.first else { return [] }
        func tempo(from start: Double, to end: Double?) -> Double? {
            let tolerance = 1e-3
            let inside = beats.filter { beat in beat >= start - tolerance && (end.map { beat < $0 - tolerance } ?? true) }
            if let end, inside.count >= 1, end > start { return 60 * Double(inside.count) / (end - start) }
            guard inside.count >= 2, let first = inside.first, let last = inside.last, last > first else { return nil }
            return 60 * Double(inside.count - 1) / (last - first)
        }
        guard !bars.isEmpty, let firstBar = bars.first else {
            return [GridAnchor(start: firstBeat, beatsPerMinute: global ?? tempo(from: firstBeat, to: nil) ?? 120, beatInBar: 1)]
        }
        var anchors: [GridAnchor] = []
        if firstBeat < firstBar - 1e-3 {
            let position = LabelTracks.beatPositions(rhythm).first.flatMap { $0 } ?? 1
            anchors.append(GridAnchor(start: firstBeat, beatsPerMinute: tempo(from: firstBeat, to: firstBar) ?? global ?? 120, beatInBar: position))
        }
        for (i, bar) in bars.enumerated() {
            let next = i + 1 < bars.count ? bars[i + 1] : nil
            let bpm = tempo(from: bar, to: next) ?? anchors.last?.beatsPerMinute ?? global ?? 120
            anchors.append(GridAnchor(start: bar, beatsPerMinute: bpm, beatInBar: 1))
        }
        return anchors
    }

    /// One `TRACK` element of a rekordbox collection (nil for an error record): `Name`, `Location`
    /// (`file://localhost/` URL), `TotalTime` (s), `AverageBpm`, `Tonality` (in `notation`),
    /// `Comments` with the energy level (``EnergyLevel``), the grid as `TEMPO` elements
    /// (``gridAnchors(_:)``, `Metro` the meter over 4), and at each section start a memory cue
    /// (`POSITION_MARK Num="-1"`) and, for the first eight sections of the music (not the silence
    /// before and after it), a hot cue (`Num` 0–7).
    public static func rekordboxTrack(_ report: Report, id: Int, options: ExportOptions) -> String? {
        guard report.error == nil, let result = report.result else { return nil }
        let headline = ReportHeadline(report)
        var attributes: [(String, String)] = [("TrackID", "\(id)"), ("Name", MarkerExport.trackName(report))]
        attributes.append(("Kind", ((report.source.path as NSString).pathExtension.uppercased() + " File").trimmingCharacters(in: .whitespaces)))
        if let seconds = report.source.duration.flatMap(ReportTime.wholeSeconds) { attributes.append(("TotalTime", "\(seconds)")) }
        if let bpm = headline.beatsPerMinute { attributes.append(("AverageBpm", String(format: "%.2f", bpm))) }
        if let key = headline.key { attributes.append(("Tonality", keyText(key, notation: options.keyNotation))) }
        if let energy = EnergyLevel.level(of: report) { attributes.append(("Comments", "Energy \(energy)")) }
        if let path = absolutePath(report) {
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            attributes.append(("Location", "file://localhost" + encoded))
        }
        var s = "    <TRACK" + attributes.map { " \($0.0)=\"\(XMLText.escaped($0.1))\"" }.joined() + ">\n"
        if let rhythm = result.rhythm {
            let meter = "\(rhythm.beatsPerBar ?? 4)/4"
            for anchor in gridAnchors(rhythm) {
                s +=
                    "      <TEMPO Inizio=\"\(seconds(anchor.start))\" Bpm=\"\(String(format: "%.2f", anchor.beatsPerMinute))\" Metro=\"\(meter)\" Battito=\"\(anchor.beatInBar)\"/>\n"
            }
        }
        let cues = sectionCues(result)
        for (cue, _) in cues {
            s += "      <POSITION_MARK Name=\"\(XMLText.escaped(cue.text))\" Type=\"0\" Start=\"\(seconds(cue.start))\" Num=\"-1\"/>\n"
        }
        for (cue, hotCue) in cues {
            guard let hotCue, hotCue < 8 else { continue }
            s += "      <POSITION_MARK Name=\"\(XMLText.escaped(cue.text))\" Type=\"0\" Start=\"\(seconds(cue.start))\" Num=\"\(hotCue)\"/>\n"
        }
        return s + "    </TRACK>\n"
    }

    /// A rekordbox collection XML (`DJ_PLAYLISTS Version="1.0.0"` ▸ `PRODUCT`, `COLLECTION` of the
    /// `tracks` (``rekordboxTrack(_:id:options:)``, ids 1…n), `PLAYLISTS` with one playlist
    /// "Cadenza" holding them all).
    public static func rekordboxDocument(tracks: [String]) -> String {
        var s = """
            <?xml version="1.0" encoding="UTF-8"?>
            <DJ_PLAYLISTS Version="1.0.0">
              <PRODUCT Name="Cadenza" Version="\(AnalyzerInfo.libraryVersion)" Company="Cadenza"/>
              <COLLECTION Entries="\(tracks.count)">

            """
        for track in tracks { s += track }
        s += """
              </COLLECTION>
              <PLAYLISTS>
                <NODE Type="0" Name="ROOT" Count="1">
                  <NODE Name="Cadenza" Type="1" KeyType="0" Entries="\(tracks.count)">

            """
        for id in tracks.indices { s += "        <TRACK Key=\"\(id + 1)\"/>\n" }
        s += """
                  </NODE>
                </NODE>
              </PLAYLISTS>
            </DJ_PLAYLISTS>

            """
        return s
    }

    // MARK: Traktor

    /// Traktor's `MUSICAL_KEY VALUE`: 0–11 the major keys from C by semitone, 12–23 the minor keys from C.
    public static func traktorKeyValue(_ key: KeyResult.KeySignature) -> Int {
        key.tonic.pitchClass + (key.mode == .minor ? 12 : 0)
    }

    /// Traktor's `LOCATION`: `DIR` the folders each followed by `/:` (`/:home/:me/:Music/:`), `FILE` the name.
    public static func traktorLocation(_ path: String) -> (dir: String, file: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
        return ("/:" + parts.map { $0 + "/:" }.joined(), (path as NSString).lastPathComponent)
    }

    /// One `ENTRY` of a Traktor collection (nil for an error record): `LOCATION`, `INFO` (`KEY` in
    /// `notation`, `PLAYTIME`, `COMMENT` the energy level), `TEMPO BPM`, `MUSICAL_KEY VALUE`
    /// (``traktorKeyValue(_:)``), a grid marker (`CUE_V2 TYPE="4"` with `GRID BPM`) at the first
    /// downbeat, and a cue (`TYPE="0"`) at each section start, the first seven sections of the
    /// music (not the silence before and after it) also on hot cues 2–8. Cue times are milliseconds.
    public static func traktorEntry(_ report: Report, options: ExportOptions) -> String? {
        guard report.error == nil, let result = report.result else { return nil }
        let headline = ReportHeadline(report)
        var s = "<ENTRY TITLE=\"\(XMLText.escaped(MarkerExport.trackName(report)))\">"
        if let path = absolutePath(report) {
            let location = traktorLocation(path)
            s += "<LOCATION DIR=\"\(XMLText.escaped(location.dir))\" FILE=\"\(XMLText.escaped(location.file))\" VOLUME=\"\" VOLUMEID=\"\"></LOCATION>"
        }
        var info: [(String, String)] = []
        if let key = headline.key { info.append(("KEY", keyText(key, notation: options.keyNotation))) }
        if let duration = report.source.duration, let seconds = ReportTime.wholeSeconds(duration) {
            info.append(("PLAYTIME", "\(seconds)"))
            info.append(("PLAYTIME_FLOAT", String(format: "%.6f", duration)))
        }
        if let energy = EnergyLevel.level(of: report) { info.append(("COMMENT", "Energy \(energy)")) }
        s += "<INFO" + info.map { " \($0.0)=\"\(XMLText.escaped($0.1))\"" }.joined() + "></INFO>"
        if let bpm = headline.beatsPerMinute {
            s += "<TEMPO BPM=\"\(String(format: "%.6f", bpm))\" BPM_QUALITY=\"100.000000\"></TEMPO>"
        }
        if let key = headline.key { s += "<MUSICAL_KEY VALUE=\"\(traktorKeyValue(key))\"></MUSICAL_KEY>" }
        let milliseconds = { (t: Double) in String(format: "%.6f", t * 1000 + 0) }
        if let bpm = headline.beatsPerMinute, let rhythm = result.rhythm, let anchor = rhythm.bars.first ?? rhythm.beats.first,
            ReportTime.isWritable(anchor)
        {
            s +=
                "<CUE_V2 NAME=\"AutoGrid\" DISPL_ORDER=\"0\" TYPE=\"4\" START=\"\(milliseconds(anchor))\" LEN=\"0.000000\" REPEATS=\"-1\" HOTCUE=\"0\"><GRID BPM=\"\(String(format: "%.6f", bpm))\"></GRID></CUE_V2>"
        }
        for (cue, hotCue) in sectionCues(result) {
            let slot = hotCue.map { $0 < 7 ? $0 + 1 : -1 } ?? -1
            s +=
                "<CUE_V2 NAME=\"\(XMLText.escaped(cue.text))\" DISPL_ORDER=\"0\" TYPE=\"0\" START=\"\(milliseconds(cue.start))\" LEN=\"0.000000\" REPEATS=\"-1\" HOTCUE=\"\(slot)\"></CUE_V2>"
        }
        return s + "</ENTRY>\n"
    }

    /// A Traktor collection NML (`NML VERSION="19"` ▸ `HEAD`, `COLLECTION` of the `entries`
    /// (``traktorEntry(_:options:)``), `PLAYLISTS` with the root folder).
    public static func traktorDocument(entries: [String]) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\" ?>\n"
        s += "<NML VERSION=\"19\"><HEAD COMPANY=\"www.native-instruments.com\" PROGRAM=\"Traktor\"></HEAD>\n"
        s += "<MUSICFOLDERS></MUSICFOLDERS>\n<COLLECTION ENTRIES=\"\(entries.count)\">\n"
        for entry in entries { s += entry }
        s += "</COLLECTION>\n<PLAYLISTS><NODE TYPE=\"FOLDER\" NAME=\"$ROOT\"><SUBNODES COUNT=\"0\"></SUBNODES></NODE></PLAYLISTS>\n</NML>\n"
        return s
    }
}

/// An energy level from 1 (calm) to 10 (intense) per track: **Cadenza's own measure**, not Mixed
/// In Key's (whose method is proprietary). It is the weighted mean of three parts, each scaled to
/// 0…1, mapped to 1…10 and rounded:
///
/// | part | weight | 0 at | 1 at |
/// |---|---|---|---|
/// | integrated loudness | 0.4 | −24 LUFS | −6 LUFS |
/// | pace (perceived events per minute, time-weighted mean) | 0.35 | 60 | 420 |
/// | density: share of time with drums active | 0.25 | 0 | 1 |
///
/// A part whose analysis is missing is left out and the weights of the rest are rescaled; with
/// none of them the level is `nil`.
public enum EnergyLevel {
    /// The level of `report`, 1…10, or nil (error record, or none of the three analyses).
    public static func level(of report: Report) -> Int? {
        guard report.error == nil, let result = report.result else { return nil }
        var parts: [(Double, Double)] = []
        func unit(_ x: Double, _ low: Double, _ high: Double) -> Double { min(1, max(0, (x - low) / (high - low))) }
        if let lufs = result.loudness.map({ Double($0.integrated.value) }) {
            parts.append((0.4, lufs.isFinite ? unit(lufs, -24, -6) : 0))
        }
        if let pace = result.pace {
            var total = 0.0, weighted = 0.0
            for range in pace.ranges where range.value.isFinite && range.range.duration > 0 {
                total += range.range.duration
                weighted += range.value * range.range.duration
            }
            if total > 0 { parts.append((0.35, unit(weighted / total, 60, 420))) }
        }
        if let activity = result.instrumentActivity, let duration = report.source.duration, duration > 0 {
            let drums = (activity.ranges[.drum] ?? []).reduce(0) { $0 + max(0, $1.duration) }
            parts.append((0.25, unit(drums / duration, 0, 1)))
        }
        let weight = parts.reduce(0) { $0 + $1.0 }
        guard weight > 0 else { return nil }
        let score = parts.reduce(0) { $0 + $1.0 * $1.1 } / weight
        return min(10, max(1, Int((1 + 9 * score).rounded())))
    }
}
