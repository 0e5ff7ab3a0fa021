import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Testing
@testable import MusicUnderstanding

/// A CMX3600 EDL reader, written for the tests from the CMX3600 event layout: a `TITLE:` line, an
/// `FCM:` line, then events `NNN REEL TRACK TRANSITION SRC_IN SRC_OUT REC_IN REC_OUT` each followed
/// by comment lines; Resolve's marker comments are ` |C:<colour> |M:<name> |D:<frames>`.
struct EDLReader {
    struct Event {
        var number: Int
        var reel: String
        var track: String
        var transition: String
        var times: [String]
        var color: String?
        var name: String?
        var durationFrames: Int?
    }

    var title = ""
    var frameCodeMode = ""
    var events: [Event] = []

    enum Failure: Error { case malformed(String) }

    init(_ text: String) throws {
        // "\r\n" is one Character in Swift, a newline like "\n".
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.hasPrefix("TITLE: ") { title = String(line.dropFirst(7)); continue }
            if line.hasPrefix("FCM: ") { frameCodeMode = String(line.dropFirst(5)); continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if line.hasPrefix(" |") || line.hasPrefix("|") {
                guard !events.isEmpty else { throw Failure.malformed("comment before any event: \(line)") }
                for field in line.components(separatedBy: " |").map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: " |")) }) {
                    if field.hasPrefix("C:") { events[events.count - 1].color = String(field.dropFirst(2)) }
                    if field.hasPrefix("M:") { events[events.count - 1].name = String(field.dropFirst(2)) }
                    if field.hasPrefix("D:") { events[events.count - 1].durationFrames = Int(field.dropFirst(2)) }
                }
                continue
            }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count == 8, let number = Int(fields[0]) else { throw Failure.malformed(line) }
            let timecode = /^\d\d:\d\d:\d\d:\d\d$/
            guard fields[4...].allSatisfy({ $0.wholeMatch(of: timecode) != nil }) else { throw Failure.malformed(line) }
            events.append(Event(number: number, reel: fields[1], track: fields[2], transition: fields[3], times: Array(fields[4...])))
        }
    }

    /// A timecode's frame count at `base` frames per second.
    static func frames(_ timecode: String, base: Int) -> Int {
        let p = timecode.split(separator: ":").compactMap { Int($0) }
        return ((p[0] * 60 + p[1]) * 60 + p[2]) * base + p[3]
    }
}

@Suite struct ExportFormatTests {
    static let sample = SampleReport.report()

    static func xml(_ text: String) throws -> XMLDocument {
        try XMLDocument(data: Data(text.utf8), options: [])
    }

    static func nodes(_ element: XMLNode, _ path: String) throws -> [XMLElement] {
        try element.nodes(forXPath: path).compactMap { $0 as? XMLElement }
    }

    static func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attribute(forName: name)?.stringValue
    }

    @Test("Frame rates: NTSC decimals are exact N·1000/1001 rates; rational times and timecodes on the frame grid")
    func frameRates() throws {
        let ntsc = try #require(FrameRate(parsing: "29.97"))
        #expect(ntsc.frameDurationNumerator == 1001 && ntsc.frameDurationDenominator == 30000 && ntsc.timecodeBase == 30)
        #expect(FrameRate(parsing: "30000/1001") == ntsc)
        #expect(FrameRate(parsing: "23.976")?.frameDurationDenominator == 24000)
        #expect(FrameRate(parsing: "25") == .pal && FrameRate(parsing: "0") == nil && FrameRate(parsing: "fast") == nil)
        #expect(ntsc.rationalTime(frames: 0) == "0s" && ntsc.rationalTime(frames: 2) == "2002/30000s")
        #expect(FrameRate.pal.rationalTime(frames: 50) == "2s" && FrameRate.pal.rationalTime(frames: 76) == "76/25s")
        #expect(FrameRate.pal.frame(at: 3.04) == 76 && FrameRate.pal.frame(at: -1) == 0)
        #expect(FrameRate.pal.timecode(frames: 3600 * 25 + 76) == "01:00:03:01")
        #expect(ntsc.description == "29.97" && FrameRate.pal.description == "25")
    }

    /// A report is untrusted: the fuzzer's crasher (Fuzz/seeds/export/fcpxml-huge-bar) put a bar at
    /// 2.7 × 10^42 s, which the frame grid turned into an integer and trapped on. Every format now
    /// writes it; the marker and the duration past 10^7 s are left out of the timelines, and frame
    /// rates outside 1 to 1000 fps (whose frame counts would overflow) are refused.
    @Test("Hostile report times: a bar at 2.7e42 s and a duration of 1e300 s export in every format without that marker; absurd frame rates are refused")
    func hostileReportTimes() throws {
        let text =
            #"{"schemaVersion":1,"source":{"path":"a.wav","duration":1e300},"rhythm":{"beats":[0.5,1,1.5,2,2.5,3,3.5,4,4.5,5],"#
            + #""bars":[0.5,2666666666666666666666666666666666666666666.5,4.5],"beatsPerMinute":1e30,"beatsPerBar":4}}"#
        let reports = try ReportPlot.reports(fromJSON: Data(text.utf8), path: "hostile.json")
        let report = try #require(reports.first)
        let markers = MarkerExport.markers(of: try #require(report.result), options: ExportOptions(markers: [.bars]))
        #expect(markers.map(\.frame) == [FrameRate.pal.frame(at: 0.5), FrameRate.pal.frame(at: 4.5)])
        let fcpxml = MarkerExport.fcpxml([report], options: ExportOptions())
        #expect(fcpxml.contains("duration=\"10000000s\""), "the timeline ends at 10^7 s")
        let devNull = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
        defer { try? devNull.close() }
        for format in ReportFormat.allCases {
            let writer = FormattedReportWriter(format: format, destination: .stream(fileDescriptor: devNull.fileDescriptor))
            try writer.write(report)
            try writer.finish()
        }
        #expect(TagWriter.tags(for: report, path: "a.wav")["BPM"] == nil)
        #expect(DJCollection.gridAnchors(try #require(report.result?.rhythm)).map(\.start) == [0.5, 4.5], "the DJ grid leaves the bar out too")
        #expect(FrameRate(parsing: "1000000000/1") == nil && FrameRate(parsing: "1/2") == nil && FrameRate(parsing: "1000/1") != nil)
        #expect(FrameRate(frameDurationNumerator: 1, denominator: 1_000_001) == nil)
    }

    @Test("Open Key: C major 1d, A minor 1m, Ab minor 6m; one step per fifth like the Camelot wheel, 4 numbers apart")
    func openKey() {
        typealias Key = KeyResult.KeySignature
        #expect(Key(tonic: .c, mode: .major).openKey == "1d")
        #expect(Key(tonic: .a, mode: .minor).openKey == "1m")
        #expect(Key(tonic: .aFlat, mode: .minor).openKey == "6m")
        #expect(Key(tonic: .e, mode: .major).openKey == "5d")
        #expect(Key(tonic: .g, mode: .major).openKey == "2d")
        for (tonic, mode, camelot) in KeyNotationTests.wheel {
            let key = Key(tonic: tonic, mode: mode)
            let number = Int(camelot.dropLast()) ?? 0
            #expect(key.openKey == "\((number + 4) % 12 + 1)\(mode == .major ? "d" : "m")", "\(key.name)")
        }
        #expect(TagWriter.KeyNotation.openkey.text(Key(tonic: .a, mode: .minor)) == "1m")
        #expect(TagWriter.tags(for: Self.sample, path: "x.flac", keyNotation: .openkey)["INITIALKEY"] == "1m")
    }

    @Test("Markers: sections and bars snapped to frames, one per frame with texts merged, beats only when asked")
    func markers() throws {
        let result = try #require(Self.sample.result)
        let markers = MarkerExport.markers(of: result, options: ExportOptions())
        // Sections at 0, 5, 13 s; bars at 1, 3, ... 19 s: those at 5 and 13 s share a frame with a section.
        #expect(markers.count == 3 + 10 - 2)
        #expect(markers.contains(MarkerExport.Marker(frame: 125, text: "B verse / bar 3", kind: .sections)))
        #expect(markers.map(\.frame) == markers.map(\.frame).sorted())
        #expect(markers.first == MarkerExport.Marker(frame: 0, text: "A intro", kind: .sections))
        #expect(markers.contains(MarkerExport.Marker(frame: 25, text: "bar 1", kind: .bars)))
        var options = ExportOptions(markers: [.bars, .beats])
        let withBeats = MarkerExport.markers(of: result, options: options)
        #expect(withBeats.count == 39, "39 beats, bars on beats merged: \(withBeats.count)")
        #expect(withBeats.contains(MarkerExport.Marker(frame: 25, text: "bar 1 / beat 1", kind: .bars)))
        #expect(withBeats.first?.text == "beat 4", "the pickup counts back from the first bar")
        options.frameRate = try #require(FrameRate(parsing: "29.97"))
        #expect(MarkerExport.markers(of: result, options: options).contains { $0.frame == 30 && $0.text.hasPrefix("bar 1") })
    }

    @Test("FCPXML parses with XMLParser's document and has the published structure; markers on frames with section names")
    func fcpxml() throws {
        let rate = try #require(FrameRate(parsing: "29.97"))
        let options = ExportOptions(frameRate: rate)
        let text = MarkerExport.fcpxml([Self.sample, Report(path: "broken.wav", error: AnalysisError.unavailable(.key))], options: options)
        let doc = try Self.xml(text)
        let root = try #require(doc.rootElement())
        #expect(root.name == "fcpxml" && Self.attribute(root, "version")?.hasPrefix("1.") == true)
        let format = try #require(try Self.nodes(root, "resources/format").first)
        #expect(Self.attribute(format, "frameDuration") == "1001/30000s")
        let projects = try Self.nodes(root, "library/event/project")
        #expect(projects.count == 1, "the error record has no project")
        #expect(Self.attribute(projects[0], "name") == "song")
        let sequence = try #require(try Self.nodes(projects[0], "sequence").first)
        #expect(Self.attribute(sequence, "format") == Self.attribute(format, "id"))
        let gap = try #require(try Self.nodes(sequence, "spine/gap").first)
        #expect(Self.attribute(gap, "duration") == rate.rationalTime(frames: rate.frame(at: 20)))
        let markers = try Self.nodes(gap, "marker")
        #expect(markers.count == 11)
        for marker in markers {
            let start = try #require(Self.attribute(marker, "start"))
            // A whole number of frames: start = n · 1001/30000 s.
            let seconds = start == "0s" ? 0 : (start.hasSuffix("/30000s") ? Double(start.dropLast(7)) ?? .nan : .nan) / 30000
            let frames = seconds * 30000 / 1001
            #expect(abs(frames - frames.rounded()) < 1e-9, "\(start)")
            #expect(Self.attribute(marker, "duration") == "1001/30000s")
        }
        let values = markers.compactMap { Self.attribute($0, "value") }
        #expect(values.contains("A intro") && values.contains("B verse / bar 3") && values.contains("A chorus / bar 7") && values.contains("bar 10"))
    }

    /// The subset of the FCPXML DTD (Apple, "FCPXML Reference ▸ Document Type Definition") that the
    /// export uses, its element and attribute declarations restated for these elements only;
    /// every other element is left out, so anything else the export wrote would fail validation.
    static let fcpxmlSubsetDTD = """
        <!ELEMENT fcpxml (resources?, library)>
        <!ATTLIST fcpxml version CDATA #REQUIRED>
        <!ELEMENT resources (format)*>
        <!ELEMENT format EMPTY>
        <!ATTLIST format id ID #REQUIRED name CDATA #IMPLIED frameDuration CDATA #IMPLIED width CDATA #IMPLIED height CDATA #IMPLIED>
        <!ELEMENT library (event)*>
        <!ELEMENT event (project)*>
        <!ATTLIST event name CDATA #IMPLIED>
        <!ELEMENT project (sequence)>
        <!ATTLIST project name CDATA #IMPLIED>
        <!ELEMENT sequence (spine)>
        <!ATTLIST sequence format IDREF #REQUIRED duration CDATA #IMPLIED tcStart CDATA #IMPLIED tcFormat (DF | NDF) #IMPLIED
                  audioLayout (mono | stereo | surround) #IMPLIED audioRate (32k | 44.1k | 48k | 88.2k | 96k | 176.4k | 192k) #IMPLIED>
        <!ELEMENT spine (gap)*>
        <!ELEMENT gap (marker)*>
        <!ATTLIST gap name CDATA #IMPLIED offset CDATA #IMPLIED start CDATA #IMPLIED duration CDATA #REQUIRED>
        <!ELEMENT marker EMPTY>
        <!ATTLIST marker start CDATA #REQUIRED duration CDATA #IMPLIED value CDATA #REQUIRED>
        """

    @Test("FCPXML validates against the DTD's declarations of the elements it uses (one project per report)")
    func fcpxmlValidates() throws {
        let text = MarkerExport.fcpxml([Self.sample, SampleReport.report(path: "b.flac")], options: ExportOptions(markers: [.sections, .bars, .beats]))
        let withDTD = text.replacingOccurrences(of: "<!DOCTYPE fcpxml>", with: "<!DOCTYPE fcpxml [\n\(Self.fcpxmlSubsetDTD)]>")
        #expect(withDTD != text)
        let doc = try XMLDocument(data: Data(withDTD.utf8), options: [])
        try doc.validate()
        // The check can fail: a marker without a value is refused.
        let broken = withDTD.replacingOccurrences(of: "value=\"A intro\"", with: "")
        #expect(throws: (any Error).self) { try XMLDocument(data: Data(broken.utf8), options: []).validate() }
    }

    @Test("XML escaping: names with & < > quotes stay well-formed and read back unchanged")
    func xmlEscaping() throws {
        var report = SampleReport.report(path: "dir/Rock & \"Roll\" <live>'s.flac")
        report.result?.structure?.sectionLabels = ["A&B", "<B>", "\"C\""]
        for text in [
            MarkerExport.fcpxml([report], options: ExportOptions()),
            DJCollection.rekordboxDocument(tracks: [try #require(DJCollection.rekordboxTrack(report, id: 1, options: ExportOptions()))]),
            DJCollection.traktorDocument(entries: [try #require(DJCollection.traktorEntry(report, options: ExportOptions()))]),
        ] {
            let doc = try Self.xml(text)
            let all = try Self.nodes(try #require(doc.rootElement()), "//*")
            let values = all.flatMap { ($0.attributes ?? []).compactMap(\.stringValue) }
            #expect(values.contains { $0.contains("Rock & \"Roll\" <live>'s") })
            #expect(values.contains { $0.hasPrefix("A&B") })
        }
    }

    @Test("EDL: read back by an EDL reader; one-frame events from 01:00:00:00 with Resolve marker comments")
    func edl() throws {
        let options = ExportOptions(frameRate: .pal, markers: [.sections, .bars])
        let text = MarkerExport.edl(Self.sample, options: options)
        let edl = try EDLReader(text)
        #expect(edl.title == "song" && edl.frameCodeMode == "NON-DROP FRAME")
        #expect(edl.events.count == 11)
        #expect(edl.events.map(\.number) == Array(1...11))
        let markers = MarkerExport.markers(of: try #require(Self.sample.result), options: options)
        for (event, marker) in zip(edl.events, markers) {
            #expect(event.reel == "001" && event.track == "V" && event.transition == "C")
            let recIn = EDLReader.frames(event.times[2], base: 25), recOut = EDLReader.frames(event.times[3], base: 25)
            #expect(recIn == 3600 * 25 + marker.frame && recOut == recIn + 1 && event.times[0] == event.times[2])
            #expect(event.name == marker.text && event.durationFrames == 1)
            #expect(event.color == MarkerExport.resolveColor(marker.kind))
        }
        #expect(edl.events.first?.color == "ResolveColorBlue" && edl.events.first?.name == "A intro")
        #expect(text.contains("\r\n"), "CMX3600 lines end in CRLF")
        #expect(throws: EDLReader.Failure.self) { _ = try EDLReader("TITLE: x\n001 001 V C 01:00 x\n") }
    }

    @Test("Kdenlive guides: a JSON array of {comment, pos in frames, type}")
    func kdenlive() throws {
        let options = ExportOptions(frameRate: try #require(FrameRate(parsing: "30")))
        let data = Data(MarkerExport.kdenliveGuides(Self.sample, options: options).utf8)
        let guides = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(guides.count == 11)
        #expect(guides.allSatisfy { Set($0.keys) == ["comment", "pos", "type"] })
        #expect(guides.first?["comment"] as? String == "A intro" && (guides.first?["pos"] as? Int) == 0)
        #expect(guides.contains { $0["comment"] as? String == "B verse / bar 3" && ($0["pos"] as? Int) == 150 && ($0["type"] as? Int) == 0 })
        #expect(guides.contains { $0["comment"] as? String == "bar 1" && ($0["pos"] as? Int) == 30 && ($0["type"] as? Int) == 1 })
        #expect(MarkerExport.kdenliveGuides(Report(path: "x", error: AnalysisError.unavailable(.key)), options: options) == "[]\n")
    }

    @Test("rekordbox XML: DJ_PLAYLISTS with TRACK (BPM, key, location), a TEMPO per bar plus the pickup, cues at sections")
    func rekordbox() throws {
        let options = ExportOptions(keyNotation: .camelot)
        let tracks = [Self.sample, SampleReport.report(path: "/abs/other song.flac")].enumerated().compactMap {
            DJCollection.rekordboxTrack($1, id: $0 + 1, options: options)
        }
        let doc = try Self.xml(DJCollection.rekordboxDocument(tracks: tracks))
        let root = try #require(doc.rootElement())
        #expect(root.name == "DJ_PLAYLISTS")
        let collection = try #require(try Self.nodes(root, "COLLECTION").first)
        #expect(Self.attribute(collection, "Entries") == "2")
        let track = try #require(try Self.nodes(collection, "TRACK").first)
        #expect(Self.attribute(track, "TrackID") == "1" && Self.attribute(track, "AverageBpm") == "120.00")
        #expect(Self.attribute(track, "Tonality") == "8A" && Self.attribute(track, "TotalTime") == "20")
        #expect(Self.attribute(track, "Location") == "file://localhost" + FileManager.default.currentDirectoryPath + "/music/song.flac")
        #expect(Self.attribute(try #require(try Self.nodes(collection, "TRACK").last), "Location") == "file://localhost/abs/other%20song.flac")
        let tempo = try Self.nodes(track, "TEMPO")
        #expect(tempo.count == 1 + 10)
        #expect(Self.attribute(tempo[0], "Inizio") == "0.500" && Self.attribute(tempo[0], "Battito") == "4")
        #expect(
            tempo.dropFirst().allSatisfy {
                Self.attribute($0, "Battito") == "1" && Self.attribute($0, "Bpm") == "120.00" && Self.attribute($0, "Metro") == "4/4"
            })
        #expect(tempo.dropFirst().compactMap { Double(Self.attribute($0, "Inizio") ?? "") } == stride(from: 1.0, through: 19, by: 2).map { $0 })
        let marks = try Self.nodes(track, "POSITION_MARK")
        #expect(marks.filter { Self.attribute($0, "Num") == "-1" }.compactMap { Self.attribute($0, "Start") } == ["0.000", "5.000", "13.000"])
        #expect(marks.filter { Self.attribute($0, "Num") != "-1" }.compactMap { Self.attribute($0, "Num") } == ["0", "1", "2"])
        #expect(marks.compactMap { Self.attribute($0, "Name") }.prefix(3) == ["A intro", "B verse", "A chorus"])
        let playlist = try Self.nodes(root, "PLAYLISTS/NODE/NODE/TRACK")
        #expect(playlist.compactMap { Self.attribute($0, "Key") } == ["1", "2"])
    }

    @Test("rekordbox grid follows a drifting tempo bar by bar")
    func drift() {
        // Beats 0.5 s apart for 4 bars, then 0.4 s apart: the later bars' TEMPO says 150 BPM.
        var beats = stride(from: 0.0, to: 8, by: 0.5).map { $0 }
        beats += stride(from: 8.0, to: 14.4, by: 0.4).map { $0 }
        let bars = stride(from: 0, to: beats.count, by: 4).map { beats[$0] }
        let anchors = DJCollection.gridAnchors(RhythmResult(beats: beats, bars: bars, beatsPerMinute: 130, beatsPerBar: 4))
        #expect(anchors.count == bars.count)
        #expect(abs(anchors[0].beatsPerMinute - 120) < 1e-6 && abs(anchors[5].beatsPerMinute - 150) < 1e-6)
    }

    @Test("Traktor NML: ENTRY with LOCATION, TEMPO, MUSICAL_KEY, a grid marker at the first downbeat and cues in ms")
    func traktor() throws {
        let entry = try #require(DJCollection.traktorEntry(Self.sample, options: ExportOptions(keyNotation: .openkey)))
        let doc = try Self.xml(DJCollection.traktorDocument(entries: [entry]))
        let root = try #require(doc.rootElement())
        #expect(root.name == "NML")
        let collection = try #require(try Self.nodes(root, "COLLECTION").first)
        #expect(Self.attribute(collection, "ENTRIES") == "1")
        let e = try #require(try Self.nodes(collection, "ENTRY").first)
        let location = try #require(try Self.nodes(e, "LOCATION").first)
        #expect(Self.attribute(location, "FILE") == "song.flac" && Self.attribute(location, "DIR")?.hasSuffix("/:music/:") == true)
        #expect(Self.attribute(try #require(try Self.nodes(e, "INFO").first), "KEY") == "1m")
        #expect(Double(Self.attribute(try #require(try Self.nodes(e, "TEMPO").first), "BPM") ?? "") == 120)
        #expect(Self.attribute(try #require(try Self.nodes(e, "MUSICAL_KEY").first), "VALUE") == "21", "A minor: 12 + 9")
        let cues = try Self.nodes(e, "CUE_V2")
        let grid = try #require(cues.first { Self.attribute($0, "TYPE") == "4" })
        #expect(Double(Self.attribute(grid, "START") ?? "") == 1000)
        #expect(Double(Self.attribute(try #require(try Self.nodes(grid, "GRID").first), "BPM") ?? "") == 120)
        let sectionCues = cues.filter { Self.attribute($0, "TYPE") == "0" }
        #expect(sectionCues.compactMap { Double(Self.attribute($0, "START") ?? "") } == [0, 5000, 13000])
        #expect(sectionCues.compactMap { Self.attribute($0, "HOTCUE") } == ["1", "2", "3"])
        #expect(DJCollection.traktorKeyValue(.init(tonic: .c, mode: .major)) == 0 && DJCollection.traktorKeyValue(.init(tonic: .b, mode: .minor)) == 23)
    }

    @Test("DJ cues: the silence before and after the music is a memory cue on no hot-cue slot, so the hot cues go to the music")
    func silentSectionsTakeNoHotCue() throws {
        var report = SampleReport.report()
        report.result?.structure = StructureResult(
            sections: [
                TimeRange(start: 0, end: 0.4), TimeRange(start: 0.4, end: 5), TimeRange(start: 5, end: 13), TimeRange(start: 13, end: 18.5),
                TimeRange(start: 18.5, end: 20),
            ],
            segments: [], phrases: [], sectionLabels: ["C", "A", "B", "A", "C"],
            sectionFunctions: ["silence", "intro", "verse", "chorus", "silence"])
        let track = try #require(DJCollection.rekordboxTrack(report, id: 1, options: ExportOptions()))
        let doc = try Self.xml(DJCollection.rekordboxDocument(tracks: [track]))
        let marks = try Self.nodes(try #require(doc.rootElement()), "COLLECTION/TRACK/POSITION_MARK")
        #expect(
            marks.filter { Self.attribute($0, "Num") == "-1" }.compactMap { Self.attribute($0, "Start") } == ["0.000", "0.400", "5.000", "13.000", "18.500"])
        let hot = marks.filter { Self.attribute($0, "Num") != "-1" }
        #expect(hot.compactMap { Self.attribute($0, "Num") } == ["0", "1", "2"])
        #expect(hot.compactMap { Self.attribute($0, "Start") } == ["0.400", "5.000", "13.000"])
        let entry = try #require(DJCollection.traktorEntry(report, options: ExportOptions()))
        let nml = try Self.xml(DJCollection.traktorDocument(entries: [entry]))
        let cues = try Self.nodes(try #require(nml.rootElement()), "COLLECTION/ENTRY/CUE_V2").filter { Self.attribute($0, "TYPE") == "0" }
        #expect(cues.compactMap { Self.attribute($0, "HOTCUE") } == ["-1", "1", "2", "3", "-1"])
    }

    @Test("Energy level: the documented weights on the sample (6), louder is higher, parts missing are left out")
    func energy() {
        // loudness (−14.25+24)/18 = 0.542, pace 180/min → 0.333, drums 15 of 20 s = 0.75:
        // 0.4·0.542 + 0.35·0.333 + 0.25·0.75 = 0.521 → 1 + 9·0.521 = 5.7 → 6.
        #expect(EnergyLevel.level(of: Self.sample) == 6)
        var loud = Self.sample
        loud.result?.loudness?.integrated.value = -5
        #expect(EnergyLevel.level(of: loud) == 7, "0.4 + 0.117 + 0.188 = 0.704 → 7.3")
        var quiet = Self.sample
        quiet.result?.loudness?.integrated.value = -40
        quiet.result?.pace = PaceResult(ranges: [.init(range: TimeRange(start: 0, end: 20), value: 30)])
        quiet.result?.instrumentActivity = nil
        #expect(EnergyLevel.level(of: quiet) == 1)
        var none = Self.sample
        none.result = SessionResult(key: nil, rhythm: nil, structure: nil, pace: nil, instrumentActivity: nil, loudness: nil)
        #expect(EnergyLevel.level(of: none) == nil)
        #expect(EnergyLevel.level(of: Report(path: "x", error: AnalysisError.unavailable(.key))) == nil)
    }

    @Test("Writer: a stream of fcpxml, rekordbox or traktor is one document of all reports written at finish; folder files named after the report path given")
    func writer() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-export-writer-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for format in [ReportFormat.fcpxml, .rekordbox, .traktor] {
            let file = dir.appendingPathComponent("stream.\(format.rawValue)")
            try Data().write(to: file)
            let handle = try FileHandle(forWritingTo: file)
            let writer = FormattedReportWriter(format: format, destination: .stream(fileDescriptor: handle.fileDescriptor))
            try writer.write(Self.sample)
            try writer.write(Report(path: "bad.wav", error: AnalysisError.unavailable(.key)))
            try writer.write(SampleReport.report(path: "b.flac"))
            #expect(try Data(contentsOf: file).isEmpty, "nothing before finish")
            try writer.finish()
            try handle.close()
            let root = try #require(try Self.xml(String(decoding: try Data(contentsOf: file), as: UTF8.self)).rootElement())
            let items = try Self.nodes(root, "//project | //COLLECTION/TRACK | //ENTRY")
            #expect(items.count == 2, "\(format): two reports, the error record skipped")
        }
        let writer = FormattedReportWriter(format: .edl, destination: .directory(dir.path))
        try writer.write(Self.sample, reportPath: dir.path + "/music/song.flac~0000abcd.json")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/music/song.flac~0000abcd.edl"))
        // The stamp beside it, after the file: the head a resumed batch reads.
        let stamp = writer.stampPath(forReportPath: dir.path + "/music/song.flac~0000abcd.json")
        #expect(stamp.hasPrefix(dir.path + "/music/.song.flac~0000abcd.edl-") && stamp.hasSuffix(".stamp.json"))
        let head = try #require(ReportHead.read(path: stamp))
        #expect(head.source == Self.sample.source && head.error == nil)
        #expect(ReportSink.formatted(writer).resumePath(forReportPath: dir.path + "/music/song.flac~0000abcd.json") == stamp)
        #expect(
            FormattedReportWriter(format: .edl, destination: .directory(dir.path), options: ExportOptions(frameRate: try #require(FrameRate(parsing: "30"))))
                .stampPath(forReportPath: dir.path + "/x.json") != writer.stampPath(forReportPath: dir.path + "/x.json"), "another frame rate, another stamp")
        #expect(ReportSink.formatted(writer).folder == dir.path)
        let json = ReportSink.formatted(FormattedReportWriter(format: .json, destination: .directory(dir.path)))
        #expect(json.resumePath(forReportPath: "d/x.json") == "d/x.json")
        #expect(ReportSink.formatted(FormattedReportWriter(format: .json, destination: .stream(fileDescriptor: 1))).folder == nil)
    }
}

/// `cadenza export` end to end: the same bytes as `analyze --format F`, on a stream and in a folder.
@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct ExportCLITests {
    @Test("export REPORT --format F equals analyze --format F for every format, on stdout and with --output")
    func sameAsAnalyze() async throws {
        let dir = try OutputCLITests.temporaryFolder("export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try OutputCLITests.drumFile(in: dir)
        let reports = dir.appendingPathComponent("reports")
        let first = try await CLI.run(["analyze", "--for", "rhythm,structure,key,loudness", "--output", reports.path, "--no-progress", input.path])
        #expect(first.status == 0, "\(first.err)")
        let report = ReportSink.outputPath(for: input.path, in: reports.path)
        for format in ReportFormat.allCases {
            let options = ["--format", format.rawValue, "--frame-rate", "29.97", "--markers", "sections,bars,beats", "--key-notation", "openkey"]
            let analysed = try await CLI.run(["analyze", "--for", "rhythm,structure,key,loudness", "--no-progress"] + options + [input.path])
            let exported = try await CLI.run(["export"] + options + [report])
            #expect(analysed.status == 0 && exported.status == 0, "\(format): \(exported.err)")
            #expect(!exported.out.isEmpty && exported.out == analysed.out, "\(format) on stdout")
            let a = dir.appendingPathComponent("a-\(format.rawValue)"), e = dir.appendingPathComponent("e-\(format.rawValue)")
            _ = try await CLI.run(["analyze", "--for", "rhythm,structure,key,loudness", "--no-progress", "--output", a.path] + options + [input.path])
            let folder = try await CLI.run(["export", "--output", e.path] + options + [reports.path])
            #expect(folder.status == 0, "\(folder.err)")
            let names = try FileManager.default.subpathsOfDirectory(atPath: a.path).sorted()
            let exportedNames = try FileManager.default.subpathsOfDirectory(atPath: e.path).sorted()
            #expect(!names.isEmpty && names == exportedNames, "\(format)")
            for name in names where !name.hasSuffix("/") {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: a.path + "/" + name, isDirectory: &isDirectory), isDirectory.boolValue { continue }
                #expect(
                    FileManager.default.contents(atPath: a.path + "/" + name) == FileManager.default.contents(atPath: e.path + "/" + name), "\(format) \(name)")
            }
        }
    }

    @Test("One-track formats refuse several inputs on stdout; a foreign file is an error naming it; --format is required")
    func refusals() async throws {
        let dir = try OutputCLITests.temporaryFolder("export-refuse")
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = [SampleReport.report(path: "a.flac"), SampleReport.report(path: "b.flac")].map { String(decoding: $0.jsonLine(), as: UTF8.self) }
        let ndjson = dir.appendingPathComponent("two.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(to: ndjson, atomically: true, encoding: .utf8)
        for format in ["labels", "edl", "kdenlive"] {
            let run = try await CLI.run(["export", "--format", format, ndjson.path])
            #expect(run.status == 2 && run.err.contains("--output") && run.out.isEmpty, "\(format): \(run.err)")
        }
        let csv = try await CLI.run(["export", "--format", "csv", ndjson.path])
        #expect(csv.status == 0 && csv.out.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3)
        let foreign = dir.appendingPathComponent("other.json")
        try Data("{\"hello\": 1}".utf8).write(to: foreign)
        let bad = try await CLI.run(["export", "--format", "csv", foreign.path, ndjson.path])
        #expect(bad.status == 1 && bad.err.contains("other.json") && bad.out.contains("a.flac"))
        let none = try await CLI.run(["export", ndjson.path])
        #expect(none.status == 2 && none.err.contains("--format"))
        let two = try await CLI.run(["analyze", "--format", "labels", "--no-progress", "Fixtures/tone_2s_stereo.flac", "Fixtures/tone_2s_stereo.ogg"])
        #expect(two.status == 2 && two.err.contains("--output"))
    }

    @Test("--format json and csv --output resume (kept on a rerun, csv through its stamp file); -V prints the version")
    func resumeAndVersion() async throws {
        let dir = try OutputCLITests.temporaryFolder("export-resume")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        for (format, kept) in [("json", false), ("json", true), ("csv", false), ("csv", true)] {
            let run = try await CLI.run(["analyze", "--for", "loudness", "--format", format, "--output", out, "--no-progress", "Fixtures/tone_2s_stereo.flac"])
            #expect(run.status == 0 && run.err.contains("current (kept)") == kept, "\(format): \(run.err)")
        }
        #expect(FileManager.default.fileExists(atPath: out + "/Fixtures/tone_2s_stereo.flac.csv"))
        let version = try await CLI.run(["-V"])
        #expect(version.status == 0 && version.out == AnalyzerInfo.libraryVersion + "\n")
    }

    @Test("completions: generated from the declarations; the bash script completes commands, options and format names")
    func completions() async throws {
        let bash = try await CLI.run(["completions", "bash"])
        #expect(bash.status == 0 && bash.out.contains("--frame-rate") && bash.out.contains("--key-notation") && bash.out.contains("--half-double"))
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-completion-\(getpid()).bash")
        try Data(bash.out.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let probe = #"""
            source "$1"
            COMP_WORDS=(cadenza ex); COMP_CWORD=1; _cadenza; echo "${COMPREPLY[*]}"
            COMP_WORDS=(cadenza analyze --frame); COMP_CWORD=2; _cadenza; echo "${COMPREPLY[*]}"
            COMP_WORDS=(cadenza export --format ""); COMP_CWORD=3; _cadenza; echo "${COMPREPLY[*]}"
            COMP_WORDS=(cadenza query db --sort e); COMP_CWORD=4; _cadenza; echo "${COMPREPLY[*]}"
            """#
        let completed = try await Shell.run(probe, script.path)
        let lines = completed.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(completed.status == 0 && lines.count >= 4, "\(completed.err)")
        #expect(lines.first == "export")
        #expect(lines.dropFirst().first == "--frame-rate")
        #expect(lines.dropFirst(2).first == ReportFormat.allCases.map(\.rawValue).joined(separator: " "))
        #expect(lines.dropFirst(3).first == "energy")
        for shell in ["zsh", "fish"] {
            let other = try await CLI.run(["completions", shell])
            #expect(other.status == 0 && other.out.contains("frame-rate") && other.out.contains("openkey"), "\(shell)")
        }
        let bad = try await CLI.run(["completions", "tcsh"])
        #expect(bad.status == 2)
        let alias = try await CLI.run(["analyze", "--for", "instrument-activity", "--no-progress", "Fixtures/tone_2s_stereo.flac"])
        #expect(alias.status == 0 && alias.out.contains("\"instrumentActivity\""), "\(alias.err)")
    }

    @Test("Usage lines are generated: every declared option of every command is on its usage line, in --help and in usage errors")
    func usageLinesListEveryOption() async throws {
        for command in ["analyze", "export", "plot", "meter", "bench", "index", "query", "completions", "man"] {
            let help = try await CLI.run([command, "--help"])
            let usage = try #require(help.out.split(separator: "\n").first { $0.hasPrefix("USAGE: cadenza \(command)") }, "\(command)")
            let declared = help.out.split(separator: "\n").filter { $0.hasPrefix("  --") && !$0.hasPrefix("  --help") }
                .map { String($0.dropFirst(2).prefix { $0 != "," && $0 != " " }) }
            for option in declared { #expect(usage.contains(option), "\(command): \(option) missing from \(usage)") }
        }
        let analyze = try await CLI.run(["analyze", "--bogus"])
        #expect(analyze.status == 2 && analyze.err.contains("[--key-notation <notation>]") && analyze.err.contains("[--progress-interval <s>]"))
    }

    @Test("cadenza man: a troff page generated from the declarations; docs/cadenza.1 is that page (regenerate: cadenza man > docs/cadenza.1)")
    func manPage() async throws {
        let man = try await CLI.run(["man"])
        #expect(man.status == 0 && man.out.hasPrefix(".TH CADENZA 1"))
        for option in ["\\-\\-key\\-notation", "\\-\\-progress\\-interval", "\\-\\-allow\\-protocols", ".SS query", ".SS man"] {
            #expect(man.out.contains(option), "\(option)")
        }
        let committed = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/cadenza.1"), encoding: .utf8)
        #expect(committed == man.out, "docs/cadenza.1 is stale: run cadenza man > docs/cadenza.1")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let rendered = try await Shell.run(#"man --warnings -l docs/cadenza.1 2>&1 >/dev/null"#)
            #expect(rendered.status == 0 && rendered.out.isEmpty, "troff warnings: \(rendered.out)")
        }
    }
}
