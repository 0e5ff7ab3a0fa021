import Foundation
import MusicUnderstanding
import Testing

/// `cadenza index` / `cadenza query` and their library, ``CatalogIndex``: headline values, incremental
/// updates, the Camelot wheel, plain SQL on the file.
@Suite(.serialized) struct CatalogIndexTests {
    typealias Session = MusicUnderstandingSession

    /// A report with the given tempo, key (tonic, mode) and loudness, as `analyze` writes it.
    static func report(_ path: String, bpm: Float?, key: (KeyResult.Tonic, KeyResult.Mode)?, lufs: Float = -14, sections: Int = 3) -> Report {
        var source = SourceInfo(path: path, duration: 180, sampleRate: 44100, channels: 2, codec: "mp3")
        source.size = 1000
        source.modified = "2026-01-01T00:00:00.000000000Z"
        let keyResult = KeyResult(
            ranges: key.map { k in
                [
                    Session.RangedValue(range: TimeRange(start: 0, duration: 150), value: KeyResult.KeySignature(tonic: k.0, mode: k.1)),
                    Session.RangedValue(range: TimeRange(start: 150, duration: 30), value: KeyResult.KeySignature(tonic: .c, mode: .major)),
                ]
            } ?? [])
        let loudness = LoudnessResult(
            integrated: .init(time: 180, value: lufs), momentary: [], shortTerm: [],
            peak: .init(time: 1, value: -1.5), loudnessRange: 6.5, truePeak: -1.2)
        let cuts = (0..<sections).map { TimeRange(start: Double($0) * 60, duration: 60) }
        var result = SessionResult(
            key: keyResult, rhythm: RhythmResult(beats: [], bars: [], beatsPerMinute: bpm, beatsPerBar: bpm == nil ? nil : 4),
            structure: StructureResult(sections: cuts, segments: cuts, phrases: cuts), loudness: loudness)
        result.source = source
        var report = Report(source: source, result: result)
        report.analyzer = AnalyzerInfo(types: [.key, .rhythm, .structure, .loudness])
        return report
    }

    static func write(_ reports: [Report], to dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for report in reports { try ReportSink.directory(dir).write(report) }
    }

    @Test("Camelot codes: from keys, from text, and the compatible neighbours")
    func camelot() {
        #expect(CamelotCode(key: .init(tonic: .a, mode: .minor)).description == "8A")
        #expect(CamelotCode(key: .init(tonic: .c, mode: .major)).description == "8B")
        #expect(CamelotCode(key: .init(tonic: .fSharp, mode: .major)).description == "2B")
        #expect(CamelotCode(key: .init(tonic: .eFlat, mode: .minor)).description == "2A")
        for (text, code) in [
            ("8A", "8A"), ("12b", "12B"), ("A minor", "8A"), ("Am", "8A"), ("C", "8B"), ("F#m", "11A"),
            ("Bb minor", "3A"), ("Db major", "3B"), ("E", "12B"), ("G#m", "1A"),
        ] {
            #expect(CamelotCode(parsing: text)?.description == code, "\(text)")
        }
        #expect(CamelotCode(parsing: "13A") == nil && CamelotCode(parsing: "H minor") == nil && CamelotCode(parsing: "") == nil)
        #expect(CamelotCode(parsing: "8A")?.compatible.map(\.description) == ["8A", "7A", "9A", "8B"])
        #expect(CamelotCode(parsing: "12B")?.compatible.map(\.description) == ["12B", "11B", "1B", "12A"])
        #expect(CamelotCode(parsing: "1A")?.compatible.map(\.description) == ["1A", "12A", "2A", "1B"])
    }

    @Test("query's table shows control characters of file names as \\xNN; CSV and NDJSON keep the name")
    func controlCharactersInNames() throws {
        let scratch = try ScratchFolder()
        let out = scratch.path("reports")
        let name = "music/\u{1B}]0;pwned\u{07}\u{9B}2J.mp3"
        try Self.write([Self.report(name, bpm: 120, key: (.a, .minor))], to: out)
        let index = try CatalogIndex(path: scratch.path("catalog.sqlite"))
        _ = try index.update(reportFolders: [out])
        let entries = try index.entries(matching: CatalogQuery())
        let table = CatalogFormat.table.render(entries)
        #expect(!table.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, "\(table)")
        #expect(table.contains("\\x1B]0;pwned\\x07\\x9B2J.mp3"))
        #expect(CatalogFormat.csv.render(entries).contains("\u{1B}]0;pwned"), "CSV is data: the exact name")
        #expect(!CatalogFormat.ndjson.render(entries).contains("\u{1B}"), "NDJSON escapes it as JSON")
    }

    @Test("index: one row per report with its headline values; queries by tempo and Camelot neighbours")
    func indexAndQuery() throws {
        let scratch = try ScratchFolder()
        let out = scratch.path("reports")
        try Self.write(
            [
                Self.report("music/a.mp3", bpm: 120, key: (.a, .minor)),  // 8A
                Self.report("music/b.mp3", bpm: 124, key: (.e, .minor)),  // 9A
                Self.report("music/c.mp3", bpm: 122, key: (.c, .major)),  // 8B
                Self.report("music/d.mp3", bpm: 121, key: (.fSharp, .major)),  // 2B: not compatible
                Self.report("music/e.mp3", bpm: 140, key: (.a, .minor)),  // out of tempo range
                Self.report("music/f.mp3", bpm: nil, key: nil, lufs: -.infinity, sections: 1),
                Report(path: "music/bad.mp3", error: AudioDecodingError.zeroLength(path: "music/bad.mp3")),
            ], to: out)
        try Data("{\"not\":\"a report\"}".utf8).write(to: URL(fileURLWithPath: out + "/music/listing.json"))
        let db = scratch.path("catalog.sqlite")
        let index = try CatalogIndex(path: db)
        let first = try index.update(reportFolders: [out])
        #expect(first.added == 7 && first.updated == 0 && first.unchanged == 0 && first.notReports.count == 1)

        let all = try index.entries(matching: CatalogQuery(includeErrors: true))
        #expect(all.map(\.path) == ["music/a.mp3", "music/b.mp3", "music/bad.mp3", "music/c.mp3", "music/d.mp3", "music/e.mp3", "music/f.mp3"])
        let a = try #require(all.first)
        #expect(a.bpm == 120 && a.beatsPerBar == 4 && a.key == "A minor" && a.camelot == "8A" && a.duration == 180)
        #expect(a.integratedLoudness == -14 && a.loudnessRange == 6.5 && (a.truePeak ?? 0) == Double(Float(-1.2)) && a.sections == 3)
        #expect(a.reportFile == URL(fileURLWithPath: out).standardizedFileURL.path + "/music/a.mp3.json")
        let silent = try #require(all.last)
        #expect(silent.bpm == nil && silent.key == nil && silent.integratedLoudness == nil && silent.sections == 1)
        #expect(all[2].errorCode == "zeroLength" && all[2].bpm == nil)
        #expect(try index.entries().count == 6, "error records only with includeErrors")

        let mix = try index.entries(matching: CatalogQuery(bpm: 118...126, camelot: CamelotCode(parsing: "8A"), compatible: true))
        #expect(mix.map(\.path) == ["music/a.mp3", "music/b.mp3", "music/c.mp3"])
        let exact = try index.entries(matching: CatalogQuery(camelot: CamelotCode(parsing: "Am")))
        #expect(exact.map(\.path) == ["music/a.mp3", "music/e.mp3"])
        #expect(try index.entries(matching: CatalogQuery(limit: 2)).count == 2)
        let stored = try #require(try index.report(reportFile: a.reportFile))
        #expect(try JSONDecoder().decode(Report.self, from: stored).source.path == "music/a.mp3")

        // Incremental: nothing changed, then one report replaced and one deleted.
        let again = try index.update(reportFolders: [out])
        #expect(again.added == 0 && again.updated == 0 && again.removed == 0 && again.unchanged == 7)
        try Self.write([Self.report("music/a.mp3", bpm: 90, key: (.d, .minor))], to: out)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: out + "/music/a.mp3.json")
        try FileManager.default.removeItem(atPath: out + "/music/e.mp3.json")
        let changed = try index.update(reportFolders: [out])
        #expect(changed.added == 0 && changed.updated == 1 && changed.removed == 1 && changed.unchanged == 5)
        let rows = try index.entries(matching: CatalogQuery(includeErrors: true))
        #expect(rows.count == 6 && rows.first?.bpm == 90 && rows.first?.camelot == "7A")
    }

    @Test("CLI: cadenza index then query --format table|ndjson|csv; plain SQL sees the documented table")
    func commandLine() async throws {
        let scratch = try ScratchFolder()
        try Self.write(
            [Self.report("m/a, \"x\".mp3", bpm: 120, key: (.a, .minor)), Self.report("m/b.mp3", bpm: 123, key: (.e, .minor))],
            to: scratch.path("r1"))
        try Self.write([Self.report("m/c.mp3", bpm: 125, key: (.d, .minor))], to: scratch.path("r2"))
        let root = scratch.root
        let indexed = try await CLI.run(["index", "r1", "r2", "--db", "cat.sqlite"], in: root)
        #expect(indexed.status == 0 && indexed.out.contains("3 added, 0 updated, 0 removed, 0 unchanged"), "\(indexed.out) \(indexed.err)")
        let rerun = try await CLI.run(["index", "r1", "r2", "--db", "cat.sqlite"], in: root)
        #expect(rerun.out.contains("0 added, 0 updated, 0 removed, 3 unchanged"), "\(rerun.out)")

        let table = try await CLI.run(["query", "cat.sqlite", "--bpm", "118-126", "--key", "8A", "--compatible"], in: root)
        #expect(table.status == 0, "\(table.err)")
        #expect(
            table.lines.count == 4 && table.lines[0].hasPrefix("path") && table.lines[1].contains("A minor") && table.lines[1].contains("8A"),
            "header + a (8A), b (E minor 9A), c (D minor 7A): \(table.out)")
        let ndjson = try await CLI.run(["query", "cat.sqlite", "--key", "7A", "--format", "ndjson"], in: root)
        let objects = try ndjson.lines.map(CLI.object)
        #expect(objects.count == 1 && objects.first?["path"] as? String == "m/c.mp3" && CLI.number(objects.first?["bpm"]) == 125)
        let csv = try await CLI.run(["query", "cat.sqlite", "--format", "csv"], in: root)
        #expect(
            csv.out.hasPrefix("path,duration,bpm,beats_per_bar,key,camelot,") && csv.out.contains("\"m/a, \"\"x\"\".mp3\",180.0,120.0,4,A minor,8A"),
            "\(csv.out)")
        let none = try await CLI.run(["query", "cat.sqlite", "--bpm", "60-70", "--format", "ndjson"], in: root)
        #expect(none.status == 0 && none.stdout.isEmpty)
        for bad in [["query", "cat.sqlite", "--key", "H"], ["query", "cat.sqlite", "--compatible"], ["query", "cat.sqlite", "--bpm", "x"], ["index", "r1"]] {
            let run = try await CLI.run(bad, in: root)
            #expect(run.status == 2, "\(bad): \(run.err)")
        }
        let missing = try await CLI.run(["query", "nothing.sqlite"], in: root)
        #expect(missing.status == 1 && missing.err.contains("nothing.sqlite"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            let sql = try await Self.shell(
                "/usr/bin/sqlite3", ["cat.sqlite", "select path, bpm, camelot, sections, json_extract(report, '$.source.codec') from tracks order by path"],
                in: root)
            #expect(sql == "m/a, \"x\".mp3|120.0|8A|3|mp3\nm/b.mp3|123.0|9A|3|mp3\nm/c.mp3|125.0|7A|3|mp3\n", "\(sql)")
        }
    }

    /// Runs a command on a thread of its own (its blocking waits must not hold Swift's cooperative pool).
    static func shell(_ executable: String, _ arguments: [String], in directory: URL) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try shellBlocking(executable, arguments, in: directory) })
            }
        }
    }

    private static func shellBlocking(_ executable: String, _ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
