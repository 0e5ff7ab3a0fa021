import Foundation
import Testing
@testable import MusicUnderstanding

/// DJ habits in the catalog: rounded-BPM matching, half/double time, sort orders, energy levels;
/// and tempo folding that leaves the meter alone.
@Suite(.serialized) struct CatalogHabitsTests {
    static func report(_ path: String, bpm: Float, key: (KeyResult.Tonic, KeyResult.Mode), lufs: Float) -> Report {
        CatalogIndexTests.report(path, bpm: bpm, key: key, lufs: lufs)
    }

    static func index(_ reports: [Report], in scratch: ScratchFolder) throws -> CatalogIndex {
        try CatalogIndexTests.write(reports, to: scratch.path("reports"))
        let index = try CatalogIndex(path: scratch.path("cat.sqlite"))
        _ = try index.update(reportFolders: [scratch.path("reports")])
        return index
    }

    @Test("--bpm 120 matches the tempo rounded to 120 (119.96, not 120.6); half/double time adds 60.1 and 240")
    func bpmMatching() throws {
        let scratch = try ScratchFolder()
        let index = try Self.index(
            [
                Self.report("m/a.mp3", bpm: 119.96, key: (.a, .minor), lufs: -14),
                Self.report("m/b.mp3", bpm: 120.6, key: (.a, .minor), lufs: -14),
                Self.report("m/c.mp3", bpm: 60.1, key: (.a, .minor), lufs: -14),
                Self.report("m/d.mp3", bpm: 240, key: (.a, .minor), lufs: -14),
                Self.report("m/e.mp3", bpm: 90, key: (.a, .minor), lufs: -14),
            ], in: scratch)
        #expect(try index.entries(matching: CatalogQuery(bpm: 120...120)).map(\.path) == ["m/a.mp3"])
        var query = CatalogQuery(bpm: 120...120)
        query.halfAndDoubleTime = true
        #expect(try index.entries(matching: query).map(\.path) == ["m/a.mp3", "m/c.mp3", "m/d.mp3"])
        query = CatalogQuery(bpm: 120...120)
        query.bpmTolerance = 0
        #expect(try index.entries(matching: query).isEmpty, "no tolerance: 119.96 is not 120")
    }

    @Test("--sort bpm, key (round the Camelot wheel, 2A before 12B) and energy (louder is higher); energy stored per row")
    func sorting() throws {
        let scratch = try ScratchFolder()
        let reports = [
            Self.report("m/a.mp3", bpm: 128, key: (.e, .major), lufs: -6),  // 12B
            Self.report("m/b.mp3", bpm: 100, key: (.eFlat, .minor), lufs: -20),  // 2A
            Self.report("m/c.mp3", bpm: 115, key: (.a, .minor), lufs: -12),  // 8A
        ]
        let index = try Self.index(reports, in: scratch)
        func order(_ sort: CatalogSort) throws -> [String] {
            var query = CatalogQuery()
            query.sort = sort
            return try index.entries(matching: query).map(\.path)
        }
        #expect(try order(.path) == ["m/a.mp3", "m/b.mp3", "m/c.mp3"])
        #expect(try order(.bpm) == ["m/b.mp3", "m/c.mp3", "m/a.mp3"])
        #expect(try order(.key) == ["m/b.mp3", "m/c.mp3", "m/a.mp3"])
        #expect(try order(.energy) == ["m/b.mp3", "m/c.mp3", "m/a.mp3"])
        let entries = try index.entries()
        #expect(entries.map(\.energy) == reports.map { EnergyLevel.level(of: $0) })
        #expect(entries.allSatisfy { $0.energy != nil })
        #expect(
            CatalogFormat.csv.render(entries).hasPrefix(
                "path,duration,bpm,beats_per_bar,key,camelot,integrated_lufs,loudness_range_lu,true_peak_dbtp,sections,energy,error\r\n"))
    }

    @Test(
        "An index made before energy levels: read-only queries work and sorting by energy says to index again; indexing adds and fills the column",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "python3 drops the column"))
    func olderIndex() async throws {
        let scratch = try ScratchFolder()
        let reports = [Self.report("m/a.mp3", bpm: 128, key: (.e, .major), lufs: -6)]
        _ = try Self.index(reports, in: scratch)
        let drop = try await Shell.run(
            #"python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("ALTER TABLE tracks DROP COLUMN energy"); c.commit()' "$1""#,
            scratch.path("cat.sqlite"))
        #expect(drop.status == 0, "\(drop.err)")
        let old = try CatalogIndex(path: scratch.path("cat.sqlite"), readOnly: true)
        #expect(try old.entries().map(\.energy) == [nil])
        var query = CatalogQuery()
        query.sort = .energy
        #expect(throws: CatalogError.self) { _ = try old.entries(matching: query) }
        let reopened = try CatalogIndex(path: scratch.path("cat.sqlite"))
        #expect(try reopened.entries(matching: query).map(\.energy) == [EnergyLevel.level(of: reports[0])])
    }

    @Test("Folding the tempo keeps the bars and the meter: 80 BPM 4/4 folded into 85-170 is 160 BPM, bars and beatsPerBar 4 unchanged")
    func foldKeepsMeter() {
        let beats = stride(from: 0.0, to: 24, by: 0.75).map { $0 }  // 80 BPM
        let bars = stride(from: 0, to: beats.count, by: 4).map { beats[$0] }
        let frames = beats.map { Int($0 * 100) }
        let slow = RhythmResult(beats: beats, bars: bars, beatsPerMinute: 80, beatsPerBar: 4)
        let analyzer = RhythmAnalyzer()
        let up = analyzer.fold(slow, into: 85...170, beatFrames: frames, curve: [], radius: 2)
        #expect(up.beats.count == 2 * beats.count - 1 && up.bars == bars && up.beatsPerBar == 4)
        #expect(abs(Double(up.beatsPerMinute ?? 0) - 160) < 0.01)
        // 200 BPM 4/4 folded into 70-140: every other beat (the downbeats' phase), meter still 4.
        let fast = stride(from: 0.0, to: 12, by: 0.3).map { $0 }
        let fastBars = stride(from: 0, to: fast.count, by: 4).map { fast[$0] }
        let down = analyzer.fold(
            RhythmResult(beats: fast, bars: fastBars, beatsPerMinute: 200, beatsPerBar: 4),
            into: 70...140, beatFrames: fast.map { Int($0 * 100) }, curve: [], radius: 2)
        #expect(down.bars == fastBars && down.beatsPerBar == 4 && abs(Double(down.beatsPerMinute ?? 0) - 100) < 0.01)
        // 3/4 cannot be halved onto its downbeats: bars stay, the meter is unknown.
        let waltzBars = stride(from: 0, to: fast.count, by: 3).map { fast[$0] }
        let waltz = analyzer.fold(
            RhythmResult(beats: fast, bars: waltzBars, beatsPerMinute: 200, beatsPerBar: 3),
            into: 70...140, beatFrames: fast.map { Int($0 * 100) }, curve: [Float](repeating: 0, count: 1300), radius: 2)
        #expect(waltz.bars == waltzBars && waltz.beatsPerBar == nil)
    }
}

/// Hostile report contents in the catalog.
@Suite struct CatalogHostileTests {
    @Test("A NUL inside a report's path is stored and read back whole, not cut at the NUL")
    func nulInPath() throws {
        let scratch = try ScratchFolder()
        let path = "m/a\u{0}b.mp3"
        // Written by hand: no file name can hold the NUL, but a report's JSON string can.
        try FileManager.default.createDirectory(atPath: scratch.path("reports"), withIntermediateDirectories: true)
        let line = CatalogHabitsTests.report(path, bpm: 120, key: (.a, .minor), lufs: -14).jsonLine()
        #expect(FileManager.default.createFile(atPath: scratch.path("reports/a.json"), contents: line + Data([0x0A])))
        let index = try CatalogIndex(path: scratch.path("cat.sqlite"))
        _ = try index.update(reportFolders: [scratch.path("reports")])
        let entries = try index.entries()
        #expect(entries.map(\.path) == [path])
        let reportFile = try #require(entries.first?.reportFile)
        let stored = try #require(try index.report(reportFile: reportFile))
        #expect(try JSONDecoder().decode(Report.self, from: stored).source.path == path)
    }
}
