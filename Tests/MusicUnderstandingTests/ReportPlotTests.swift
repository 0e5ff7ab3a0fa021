import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Testing
@testable import MusicUnderstanding

/// The elements of an SVG document, read back with `XMLParser` (so the picture is well-formed XML).
final class SVGElements: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        /// The ids of the enclosing groups, outermost first.
        var groups: [String]
    }
    private(set) var elements: [Element] = []
    private var groups: [String] = []
    private var open: [Int] = []

    static func parse(_ text: String) throws -> [Element] {
        let parser = XMLParser(data: Data(text.utf8))
        let delegate = SVGElements()
        parser.delegate = delegate
        #expect(parser.parse(), "well-formed XML: \(String(describing: parser.parserError))")
        return delegate.elements
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(Element(name: name, attributes: attributes, groups: groups))
        open.append(elements.count - 1)
        if name == "g" { groups.append(attributes["id"] ?? "") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let last = open.last { elements[last].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
        if name == "g" { groups.removeLast() }
    }
}

extension [SVGElements.Element] {
    func inLane(_ lane: ReportPlot.Lane) -> [SVGElements.Element] { filter { $0.groups.last == "lane-\(lane.rawValue)" } }
    func withClass(_ c: String) -> [SVGElements.Element] { filter { $0.attributes["class"] == c } }
}

@Suite struct ReportPlotTests {
    static func number(_ e: SVGElements.Element, _ key: String) -> Double { Double(e.attributes[key] ?? "") ?? .nan }

    @Test("A song: lanes top to bottom, headline values, bands where the report puts them, every beat and bar drawn")
    func songStructure() throws {
        let plot = ReportPlot(report: SampleReport.report())
        let svg = plot.svg()
        let elements = try SVGElements.parse(svg)
        let lanes = elements.filter { $0.name == "g" && ($0.attributes["id"] ?? "").hasPrefix("lane-") }
        #expect(lanes.map { $0.attributes["id"] ?? "" } == ReportPlot.Lane.allCases.map { "lane-\($0.rawValue)" })
        let tops = lanes.map { Self.number($0, "data-top") }
        #expect(tops == tops.sorted() && Set(tops).count == tops.count)

        let headline = elements.withClass("headline").map(\.text)
        #expect(headline.contains("120.0 BPM · 4 beats/bar") && headline.contains("A minor (8A)") && headline.contains("0:20"))
        #expect(headline.contains("6.5 LU") && headline.contains { $0.hasPrefix("-14.") && $0.hasSuffix("LUFS") })

        // Sections: three bands at their times, A and A the same colour, B another.
        let sections = elements.inLane(.sections).withClass("section")
        #expect(sections.count == 3)
        #expect(sections.map { Self.number($0, "x") } == [0.0, 5, 13].map(plot.x))
        #expect(sections[0].attributes["fill"] == sections[2].attributes["fill"] && sections[0].attributes["fill"] != sections[1].attributes["fill"])
        #expect(elements.inLane(.sections).filter { $0.name == "text" }.map(\.text) == ["Sections", "A intro", "B verse", "A chorus"])
        // Key: two bands, texts in standard notation with Camelot.
        #expect(elements.inLane(.key).withClass("key").count == 2)
        #expect(elements.inLane(.key).filter { $0.name == "text" }.map(\.text) == ["Key", "Am 8A", "C 8B"])
        // Instruments: the drum range starts at 5 s; bass has no range; vocal 13–18 s.
        let drum = elements.inLane(.drum).withClass("range")
        #expect(drum.count == 1 && abs(Self.number(drum[0], "x") - plot.x(5)) < 0.01 && abs(Self.number(drum[0], "width") - (plot.x(20) - plot.x(5))) < 0.01)
        #expect(elements.inLane(.bass).withClass("range").isEmpty)
        #expect(elements.inLane(.drum).withClass("activity").count == 1 && elements.inLane(.bass).withClass("activity").isEmpty)
        // Beats and bars: 39 beat lines, 10 bar lines.
        #expect(plot.drawsBeats && plot.barStride == 1)
        let beats = try #require(elements.inLane(.beats).withClass("beats").first?.attributes["d"])
        #expect(beats.filter { $0 == "M" }.count == 39)
        #expect(elements.inLane(.beats).withClass("bars").first?.attributes["data-count"] == "10")
        // Loudness: the area and the integrated line at −14.25 LUFS.
        let (top, height) = plot.lane(.loudness)
        let integrated = try #require(elements.inLane(.loudness).withClass("integrated").first)
        #expect(abs(Self.number(integrated, "y1") - (top + height * (1 - (60 - 14.25) / 60))) < 0.01)
        // Time axis: 0:00 to 0:20.
        let ticks = elements.inLane(.axis).withClass("tick").map(\.text)
        #expect(ticks.first == "0:00" && ticks.last == "0:20" && ticks.count >= 5)
        // Legend.
        #expect(elements.contains { $0.groups.last == "legend" && $0.text == "drum" })
    }

    @Test("The local tempo is a line in the top of the beat lane, labelled with its range; none without a curve")
    func tempoCurve() throws {
        let beats = stride(from: 0.5, to: 20, by: 0.5).map { $0 }
        let bars = stride(from: 0.5, to: 20, by: 2.0).map { $0 }
        let curve = bars.map { MusicUnderstandingSession.TimedValue<Float>(time: $0, value: Float(110 + $0 - 0.5)) }
        var result = SampleReport.result()
        result.rhythm = RhythmResult(beats: beats, bars: bars, beatsPerMinute: 120, beatsPerBar: 4, tempoCurve: curve)
        let plot = ReportPlot(report: Report(source: SourceInfo(path: "a.wav", duration: 20), result: result))
        let elements = try SVGElements.parse(plot.svg())
        let line = try #require(elements.inLane(.beats).withClass("tempo-curve").first)
        #expect(line.attributes["data-count"] == "10")
        let d = try #require(line.attributes["d"])
        #expect(d.filter { $0 == "L" }.count == 9)
        #expect(elements.inLane(.beats).contains { $0.text == "110–128 BPM" })
        // Rising tempo: the line climbs (SVG y grows downwards), within the lane's top 40 %.
        let ys = d.split(whereSeparator: { $0 == "M" || $0 == "L" }).compactMap { Double($0.split(separator: ",")[1]) }
        let (top, height) = plot.lane(.beats)
        #expect(ys == ys.sorted(by: >) && ys.allSatisfy { $0 >= top && $0 <= top + 0.4 * height })
        #expect(elements.contains { $0.groups.last == "legend" && $0.text == "local tempo" })

        let steady = try SVGElements.parse(ReportPlot(report: SampleReport.report()).svg())
        #expect(steady.inLane(.beats).withClass("tempo-curve").isEmpty)
    }

    @Test("A 1-hour mix: no beat lines, bar lines thinned to at least 4 px apart, curves one point per pixel, small file")
    func hourLongMix() throws {
        let beats = stride(from: 0.25, to: 3600, by: 0.5).map { $0 }  // 120 BPM for an hour: 7200 beats
        let bars = stride(from: 0.25, to: 3600, by: 2.0).map { $0 }
        let curve = stride(from: 0.1, through: 3600, by: 0.1).map {
            MusicUnderstandingSession.TimedValue<Float>(time: $0, value: Float(-20 + 5 * sin($0 / 30)))
        }
        let loudness = LoudnessResult(
            integrated: .init(time: 3600, value: -18), momentary: curve, shortTerm: curve,
            peak: .init(time: 1, value: -1), loudnessRange: 8, truePeak: -0.5)
        let activity = InstrumentActivityResult(
            ranges: [.drum: [TimeRange(start: 0, end: 3600)]],
            activity: [.drum: curve.map { .init(time: $0.time, value: 0.7) }])
        let sections = stride(from: 0.0, to: 3600, by: 16).map { TimeRange(start: $0, duration: 16) }
        let result = SessionResult(
            rhythm: RhythmResult(
                beats: beats, bars: bars, beatsPerMinute: 120, beatsPerBar: 4,
                tempoCurve: bars.map { .init(time: $0, value: Float(118 + 4 * sin($0 / 60))) }),
            structure: StructureResult(
                sections: sections, segments: sections, phrases: sections,
                sectionLabels: sections.indices.map { $0 % 2 == 0 ? "A" : "B" }),
            instrumentActivity: activity, loudness: loudness)
        let plot = ReportPlot(report: Report(source: SourceInfo(path: "mix.flac", duration: 3600), result: result))
        #expect(!plot.drawsBeats)
        #expect(plot.barStride == 8, "2 s bars are 0.59 px apart: every 4th is 2.3 px, every 8th 4.7 px")
        let svg = plot.svg()
        let elements = try SVGElements.parse(svg)
        #expect(elements.inLane(.beats).withClass("beats").isEmpty)
        let drawnBars = Int(elements.inLane(.beats).withClass("bars").first?.attributes["data-count"] ?? "") ?? 0
        #expect(drawnBars > 0 && Double(drawnBars) <= plot.layout.plotWidth / plot.layout.minimumLineSpacing)
        let area = try #require(elements.inLane(.loudness).withClass("loudness").first?.attributes["d"])
        #expect(area.filter { $0 == "L" }.count <= 2 * Int(plot.layout.plotWidth) + 2, "36,000 values aggregated to the pixel")
        let tempo = try #require(elements.inLane(.beats).withClass("tempo-curve").first?.attributes["d"])
        #expect(tempo.filter { $0 == "L" }.count <= Int(plot.layout.plotWidth), "1,800 bar tempi, at most one per pixel")
        #expect(svg.utf8.count < 400_000, "\(svg.utf8.count) bytes")
        #expect(elements.inLane(.axis).withClass("tick").map(\.text).last == "1:00:00")
        #expect(elements.first { $0.groups.last == "lane-beats" && $0.name == "text" }?.text.hasPrefix("Bars (1 in") == true)
    }

    @Test("Missing analyses are named in their lanes; HTML is self-contained (no scripts, links, fonts or URLs)")
    func partialReportAndSelfContainedPage() throws {
        var result = SampleReport.result()
        result.rhythm = nil
        result.instrumentActivity = nil
        let plot = ReportPlot(report: Report(source: SourceInfo(path: "a<b>&\"c\".wav", duration: 20), result: result))
        let elements = try SVGElements.parse(plot.svg())
        #expect(elements.inLane(.beats).contains { $0.text == "rhythm not analysed" })
        #expect(elements.inLane(.vocal).contains { $0.text == "instrument activity not analysed" })
        #expect(elements.contains { $0.name == "text" && $0.text == "a<b>&\"c\".wav" }, "names are escaped and read back")
        let html = plot.html().lowercased()
        for forbidden in ["<script", "<link", "@import", "url(", "@font-face", "src=", "https:"] {
            #expect(!html.contains(forbidden), "\(forbidden)")
        }
        // Links only to anchors in the page itself (the zoom levels).
        #expect(html.components(separatedBy: "href=\"").dropFirst().allSatisfy { $0.hasPrefix("#") })
        #expect(html.components(separatedBy: "http://").count == 2, "only the SVG namespace URI")
        #expect(html.hasPrefix("<!doctype html>") && html.contains("<svg"))
    }

    @Test("Hostile reports draw without a crash: long labels, huge or tiny durations, a pace of 1e308")
    func hostileReportsDraw() throws {
        var longLabels = SampleReport.result()
        if var structure = longLabels.structure {
            structure.sectionLabels = structure.sections.map { _ in String(repeating: "ZYXWVUTSRQPONM", count: 8) }
            longLabels.structure = structure
        }
        var hugePace = SampleReport.result()
        hugePace.pace = PaceResult(ranges: [.init(range: TimeRange(start: 0, duration: 10), value: 1e308)])
        let cases: [(String, Report)] = [
            ("long labels", Report(source: SourceInfo(path: "a.wav", duration: 20), result: longLabels)),
            ("duration 1e20", Report(source: SourceInfo(path: "a.wav", duration: 1e20), result: SampleReport.result())),
            ("duration 1e-300", Report(source: SourceInfo(path: "a.wav", duration: 1e-300), result: SampleReport.result())),
            ("pace 1e308", Report(source: SourceInfo(path: "a.wav", duration: 20), result: hugePace)),
            ("control characters", Report(source: SourceInfo(path: "a\u{1B}[31m\u{07}\u{0}b.wav", duration: 20), result: longLabels)),
        ]
        for (name, report) in cases {
            let plot = ReportPlot(report: report)
            let elements = try SVGElements.parse(plot.svg())
            #expect(!elements.isEmpty, "\(name): a readable SVG")
            #expect(plot.html().lowercased().hasPrefix("<!doctype html>"), "\(name)")
        }
        #expect(ReportPlot.clock(1e20) == "1e+20 s" && ReportPlot.clock(.nan) == "?")
        #expect(ReportPlot.column(.infinity, count: 10) == 9 && ReportPlot.column(-1e300, count: 10) == 0)
    }

    @Test("A tempo range error names huge and tiny numbers without a crash")
    func tempoRangeErrorOfExtremeNumbers() {
        let error = TempoRangeError.outside(1...1e30, tracked: 40...240)
        #expect(error.description.contains("1e+30"))
        let config = RhythmAnalyzer.Configuration()
        #expect(throws: TempoRangeError.self) { try config.parseFoldedTempoRange("1e-300-1e300") }
    }

    @Test("Reports are read as one object, an array or NDJSON; other files and error records are refused")
    func readingReports() throws {
        let line = SampleReport.report().jsonLine()
        #expect(try ReportPlot.reports(fromJSON: line, path: "a.json").count == 1)
        #expect(try ReportPlot.reports(fromJSON: Data("[".utf8) + line + Data(",".utf8) + line + Data("]".utf8), path: "a.json").count == 2)
        #expect(try ReportPlot.reports(fromJSON: line + Data("\n".utf8) + line + Data("\n".utf8), path: "a.json").count == 2)
        #expect(try ReportPlot.reports(fromJSON: PrettyJSON.format(line), path: "a.json").count == 1)
        #expect(throws: PlotError.self) { try ReportPlot.reports(fromJSON: Data("{\"x\":1}".utf8), path: "a.json") }
        #expect(throws: PlotError.self) { try ReportPlot.reports(fromJSON: Data("not json".utf8), path: "a.json") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-plotread-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = dir.appendingPathComponent("bad.json")
        try Report(path: "x.mp3", error: AudioDecodingError.fileNotFound(path: "x.mp3")).jsonLine().write(to: record)
        #expect(throws: PlotError.errorRecord(path: "x.mp3", message: "x.mp3: no such file")) { try ReportPlot.report(for: record.path) }
        #expect(
            ReportPlot.FileKind(path: "x.SVG") == .svg && ReportPlot.FileKind(path: "x.htm") == .html && ReportPlot.FileKind(path: "x.png") == .png
                && ReportPlot.FileKind(path: "x.pdf") == nil)
    }
}

@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct PlotCLITests {
    @Test("cadenza plot REPORT.json -o x.svg / x.html draws without analysing; bad input exit 1 and no file; .pdf exit 2")
    func plotCommand() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-plotcli-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = dir.appendingPathComponent("song.json")
        try SampleReport.report().jsonLine().write(to: report)
        for name in ["song.svg", "song.html"] {
            let out = dir.appendingPathComponent(name)
            let run = try await CLI.run(["plot", report.path, "-o", out.path])
            #expect(run.status == 0, "\(run.err)")
            let text = try String(contentsOf: out, encoding: .utf8)
            #expect(name.hasSuffix("svg") ? text.hasPrefix("<svg") : text.hasPrefix("<!DOCTYPE html>"))
            #expect(text.contains(">A minor (8A)<"))
        }
        let bad = try await CLI.run(["plot", "Fixtures/random_bytes.flac", "-o", dir.appendingPathComponent("bad.html").path])
        #expect(bad.status == 1 && bad.err.contains("random_bytes.flac"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad.html").path))
        let pdf = try await CLI.run(["plot", report.path, "-o", dir.appendingPathComponent("x.pdf").path])
        #expect(pdf.status == 2 && pdf.err.contains(".html, .svg or .png"))
        let audio = try await CLI.run(["plot", "Fixtures/tone_2s_stereo.flac", "-o", dir.appendingPathComponent("tone.svg").path])
        #expect(audio.status == 0, "\(audio.err)")
        let tone = try String(contentsOf: dir.appendingPathComponent("tone.svg"), encoding: .utf8)
        #expect(tone.contains("tone_2s_stereo.flac") && tone.contains(">0:02<") && tone.contains("LUFS<"), "analysed, then drawn")
    }
}

extension PlotCLITests {
    @Test("Several reports on one page (every report of an NDJSON file, and more files), zoom links in CSS alone, one stacked SVG, PNG via rsvg-convert")
    func severalReports() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-plotmany-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = dir.appendingPathComponent("two.ndjson")
        let failed = Report(path: "gone.wav", error: AnalysisError.decoding(.fileNotFound(path: "gone.wav")))
        try
            (SampleReport.report(path: "a.flac").jsonLine() + Data([0x0A]) + failed.jsonLine() + Data([0x0A])
            + SampleReport.report(path: "b.flac").jsonLine() + Data([0x0A])).write(to: lines)
        let single = dir.appendingPathComponent("c.json")
        try SampleReport.report(path: "c.flac").jsonLine().write(to: single)

        let html = dir.appendingPathComponent("page.html")
        let run = try await CLI.run(["plot", lines.path, single.path, "-o", html.path])
        #expect(run.status == 0, "\(run.err)")
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.components(separatedBy: "<section>").count == 4, "three plots, the error record left out")
        for name in ["a.flac", "b.flac", "c.flac"] { #expect(page.contains(">\(name)<")) }
        #expect(page.contains(##"<a href="#zoom4">4×</a>"##) && page.contains("#zoom4:target ~ .plots svg { width: 4800px"))
        #expect(!page.lowercased().contains("<script"))

        let svg = dir.appendingPathComponent("page.svg")
        #expect(try await CLI.run(["plot", lines.path, single.path, "-o", svg.path]).status == 0)
        let stacked = try Data(contentsOf: svg)
        let parser = XMLParser(data: stacked)
        #expect(parser.parse(), "the stacked SVG is well-formed XML")
        let text = String(decoding: stacked, as: UTF8.self)
        #expect(text.components(separatedBy: "<svg ").count == 5, "one outer SVG holding three plots")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert") {
            let png = dir.appendingPathComponent("page.png")
            let made = try await CLI.run(["plot", single.path, "-o", png.path])
            #expect(made.status == 0, "\(made.err)")
            let bytes = try Data(contentsOf: png)
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            // IHDR: width then height, big-endian, at bytes 16 and 20.
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == Int(ReportPlot.Layout().width))
        }
        // A missing input is named; the others are still drawn, exit status 1.
        let partly = try await CLI.run(["plot", single.path, dir.appendingPathComponent("missing.json").path, "-o", html.path])
        #expect(partly.status == 1 && partly.err.contains("missing.json"), "\(partly.err)")
        #expect(try String(contentsOf: html, encoding: .utf8).components(separatedBy: "<section>").count == 2)
    }
}
