import Foundation
import Testing
@testable import MusicUnderstanding

/// A hand-made report with every analysis, whose every output value is known.
enum SampleReport {
    typealias Key = KeyResult.KeySignature

    /// 20 s at 120 BPM in 4/4 with a one-beat pickup: beats at 0.5, 1.0, ... 19.5; bars from 1.0 every 2 s.
    static func result() -> SessionResult {
        let beats = stride(from: 0.5, through: 19.5, by: 0.5).map { $0 }
        let bars = stride(from: 1.0, through: 19.0, by: 2.0).map { $0 }
        let key = KeyResult(ranges: [
            .init(range: TimeRange(start: 0, end: 13), value: Key(tonic: .a, mode: .minor)),
            .init(range: TimeRange(start: 13, end: 20), value: Key(tonic: .c, mode: .major)),
        ])
        let structure = StructureResult(
            sections: [TimeRange(start: 0, end: 5), TimeRange(start: 5, end: 13), TimeRange(start: 13, end: 20)],
            segments: [TimeRange(start: 0, end: 5), TimeRange(start: 5, end: 13), TimeRange(start: 13, end: 20)],
            phrases: [TimeRange(start: 0, end: 5), TimeRange(start: 5, end: 13), TimeRange(start: 13, end: 20)],
            sectionLabels: ["A", "B", "A"], sectionFunctions: ["intro", "verse", "chorus"])
        let curve = stride(from: 0.1, through: 20, by: 0.1).map { MusicUnderstandingSession.TimedValue<Float>(time: $0, value: -20) }
        let loudness = LoudnessResult(
            integrated: .init(time: 20, value: -14.25), momentary: curve, shortTerm: curve,
            peak: .init(time: 3, value: -1.5), loudnessRange: 6.5, truePeak: -0.75)
        let pace = PaceResult(ranges: [.init(range: TimeRange(start: 0, end: 10), value: 120), .init(range: TimeRange(start: 10, end: 20), value: 240)])
        let activity = InstrumentActivityResult(
            ranges: [.drum: [TimeRange(start: 5, end: 20)], .bass: [], .vocal: [TimeRange(start: 13, end: 18)], .other: [TimeRange(start: 0, end: 20)]],
            activity: [.drum: stride(from: 0.0, to: 20, by: 0.1).map { .init(time: $0, value: $0 >= 5 ? 0.8 : 0) }])
        return SessionResult(
            key: key, rhythm: RhythmResult(beats: beats, bars: bars, beatsPerMinute: 120, beatsPerBar: 4),
            structure: structure, pace: pace, instrumentActivity: activity, loudness: loudness)
    }

    static func report(path: String = "music/song.flac") -> Report {
        Report(source: SourceInfo(path: path, duration: 20, sampleRate: 44_100, channels: 2, codec: "flac"), result: result())
    }
}

@Suite struct KeyNotationTests {
    /// The Camelot wheel as Mixed In Key publishes it (number, then A = minor, B = major).
    static let wheel: [(KeyResult.Tonic, KeyResult.Mode, String)] = [
        (.c, .major, "8B"), (.g, .major, "9B"), (.d, .major, "10B"), (.a, .major, "11B"), (.e, .major, "12B"), (.b, .major, "1B"),
        (.fSharp, .major, "2B"), (.dFlat, .major, "3B"), (.aFlat, .major, "4B"), (.eFlat, .major, "5B"), (.bFlat, .major, "6B"), (.f, .major, "7B"),
        (.a, .minor, "8A"), (.e, .minor, "9A"), (.b, .minor, "10A"), (.fSharp, .minor, "11A"), (.cSharp, .minor, "12A"), (.gSharp, .minor, "1A"),
        (.eFlat, .minor, "2A"), (.bFlat, .minor, "3A"), (.f, .minor, "4A"), (.c, .minor, "5A"), (.g, .minor, "6A"), (.d, .minor, "7A"),
        (.gFlat, .major, "2B"), (.dSharp, .minor, "2A"), (.aSharp, .minor, "3A"), (.cSharp, .major, "3B"),
    ]

    @Test("Camelot codes of all 24 keys (and enharmonic spellings) match the published wheel")
    func camelotWheel() {
        for (tonic, mode, code) in Self.wheel {
            #expect(KeyResult.KeySignature(tonic: tonic, mode: mode).camelot == code, "\(tonic) \(mode)")
        }
    }

    @Test("Standard notation is the ID3 TKEY form: at most three characters, m for minor")
    func standardNotation() {
        #expect(KeyResult.KeySignature(tonic: .fSharp, mode: .major).standardNotation == "F#")
        #expect(KeyResult.KeySignature(tonic: .eFlat, mode: .minor).standardNotation == "Ebm")
        #expect(KeyResult.KeySignature(tonic: .a, mode: .minor).standardNotation == "Am")
        #expect(KeyResult.KeySignature(tonic: .a, mode: .minor).jamsValue == "A:minor")
        for tonic in KeyResult.Tonic.allCases {
            #expect(KeyResult.KeySignature(tonic: tonic, mode: .minor).standardNotation.count <= 3)
        }
    }

    @Test("The main key is the one that holds longest, not the first")
    func mainKey() {
        let c = KeyResult.KeySignature(tonic: .c, mode: .major), g = KeyResult.KeySignature(tonic: .g, mode: .major)
        let key = KeyResult(ranges: [
            .init(range: TimeRange(start: 0, end: 10), value: c), .init(range: TimeRange(start: 10, end: 25), value: g),
            .init(range: TimeRange(start: 25, end: 28), value: c),
        ])
        #expect(key.mainKey == g)
        #expect(KeyResult(ranges: []).mainKey == nil)
    }
}

@Suite struct OutputFormatTests {
    @Test("CSV: header, one row of headline values, RFC 4180 quoting and CRLF")
    func csvRow() {
        #expect(CSVTable.header == "path,duration,bpm,beats_per_bar,key,camelot,integrated_lufs,loudness_range_lu,true_peak_dbtp,error\r\n")
        #expect(CSVTable.row(SampleReport.report()) == "music/song.flac,20.000,120.000,4,A minor,8A,-14.250,6.500,-0.750,\r\n")
        let odd = SampleReport.report(path: "a, \"b\"\nc.mp3")
        #expect(CSVTable.row(odd).hasPrefix("\"a, \"\"b\"\"\nc.mp3\",20.000,"))
        let error = Report(path: "x.mp3", error: AudioDecodingError.fileNotFound(path: "x.mp3"))
        let fields = CSVTable.row(error).dropLast(2).split(separator: ",", omittingEmptySubsequences: false)
        #expect(fields.count == 10 && fields[0] == "x.mp3" && fields[1...8].allSatisfy(\.isEmpty) && fields[9].contains("x.mp3"))
        var silent = SampleReport.report()
        silent.result?.loudness?.integrated.value = -.infinity
        silent.result?.rhythm = nil
        #expect(CSVTable.row(silent) == "music/song.flac,20.000,,,A minor,8A,-inf,6.500,-0.750,\r\n")
    }

    @Test("Pretty JSON moves only whitespace: it parses to the same value as the compact line")
    func prettyJSON() throws {
        let compact = SampleReport.report(path: "we{ir}d, [path]: \"x\\\".mp3").jsonLine()
        let pretty = PrettyJSON.format(compact)
        let a = try JSONSerialization.jsonObject(with: compact) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: pretty) as? NSDictionary
        #expect(a != nil && a == b)
        let text = String(decoding: pretty, as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"instrumentActivity\": {\n    \"activity\": {\n"))
        #expect(text.contains("\"bass\": []"), "empty arrays stay on one line")
        #expect(text.contains("\"path\": \"we{ir}d, [path]: \\\"x\\\\\\\".mp3\""), "strings untouched")
        #expect(try SchemaValidator.reportSchema().validate(pretty).isEmpty)
    }

    @Test("Beat positions count from each bar line; a pickup counts back from the first")
    func beatPositions() {
        let positions = LabelTracks.beatPositions(SampleReport.result().rhythm ?? RhythmResult(beats: [], bars: [], beatsPerMinute: nil))
        #expect(positions.prefix(6).map { $0 ?? 0 } == [4, 1, 2, 3, 4, 1])
        #expect(positions.count == 39)
        let threeFour = RhythmResult(beats: [0, 1, 2, 3, 4, 5, 6], bars: [2, 5], beatsPerMinute: 60, beatsPerBar: 3)
        #expect(LabelTracks.beatPositions(threeFour).map { $0 ?? 0 } == [2, 3, 1, 2, 3, 1, 2])
        #expect(LabelTracks.beatPositions(RhythmResult(beats: [1, 2], bars: [], beatsPerMinute: 60)).allSatisfy { $0 == nil })
    }

    @Test("Label tracks: tab-separated start, end and text; points for beats and bars, ranges for sections and keys")
    func labels() {
        let result = SampleReport.result()
        let beats = LabelTracks.text(.beats, of: result).split(separator: "\n")
        #expect(beats.count == 39)
        #expect(beats[0] == "0.500000\t0.500000\t4" && beats[1] == "1.000000\t1.000000\t1")
        #expect(LabelTracks.text(.bars, of: result).split(separator: "\n").last == "19.000000\t19.000000\t10")
        #expect(LabelTracks.text(.sections, of: result) == "0.000000\t5.000000\tA intro\n5.000000\t13.000000\tB verse\n13.000000\t20.000000\tA chorus\n")
        #expect(LabelTracks.text(.key, of: result) == "0.000000\t13.000000\tA minor 8A\n13.000000\t20.000000\tC major 8B\n")
        let combined = LabelTracks.combinedText(of: result).split(separator: "\n")
        #expect(combined.count == 39 + 10 + 3 + 2)
        #expect(combined.prefix(3) == ["0.000000\t5.000000\tsection A intro", "0.000000\t13.000000\tkey A minor 8A", "0.500000\t0.500000\tbeat 4"])
        let times = combined.compactMap { Double($0.split(separator: "\t")[0]) }
        #expect(times == times.sorted())
    }

    @Test("JAMS: valid against the JAMS 0.3.5 schema and the beat, tempo, key_mode and segment_open namespaces")
    func jamsValidates() throws {
        let data = try #require(JAMSDocument.data(SampleReport.report()))
        try JAMSValidator.validate(data)
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let annotations = try #require(doc["annotations"] as? [[String: Any]])
        #expect(annotations.map { $0["namespace"] as? String ?? "" } == ["beat", "tempo", "key_mode", "segment_open", "segment_open"])
        let beats = try #require(annotations[0]["data"] as? [[String: Any]])
        #expect(beats.count == 39 && CLI.number(beats[1]["time"]) == 1 && CLI.number(beats[1]["value"]) == 1 && CLI.number(beats[0]["value"]) == 4)
        let tempo = try #require((annotations[1]["data"] as? [[String: Any]])?.first)
        #expect(CLI.number(tempo["value"]) == 120 && CLI.number(tempo["duration"]) == 20)
        let keys = try #require(annotations[2]["data"] as? [[String: Any]])
        #expect(keys.map { $0["value"] as? String ?? "" } == ["A:minor", "C:major"])
        #expect((annotations[3]["data"] as? [[String: Any]])?.map { $0["value"] as? String ?? "" } == ["A", "B", "A"])
        #expect((annotations[4]["data"] as? [[String: Any]])?.map { $0["value"] as? String ?? "" } == ["intro", "verse", "chorus"])
        let meta = try #require(doc["file_metadata"] as? [String: Any])
        #expect(meta["title"] as? String == "song" && CLI.number(meta["duration"]) == 20)
        #expect(JAMSDocument.document(Report(path: "x.mp3", error: AudioDecodingError.fileNotFound(path: "x.mp3"))) == nil)
    }

    @Test("JAMS: the Swift-side validator rejects what the schema forbids (it can fail)")
    func jamsValidatorCatchesErrors() throws {
        let good = try #require(JAMSDocument.document(SampleReport.report()))
        guard case .object(var doc) = good, case .array(var annotations) = doc["annotations"],
            case .object(var tempo) = annotations[1], case .object(var key) = annotations[2]
        else {
            Issue.record("unexpected document shape")
            return
        }
        tempo["data"] = .array([.object(["time": .number(0), "duration": .number(20), "value": .number(120), "confidence": .null])])
        key["data"] = .array([.object(["time": .number(0), "duration": .number(20), "value": .string("H:major"), "confidence": .null])])
        annotations[1] = .object(tempo)
        annotations[2] = .object(key)
        doc["annotations"] = .array(annotations)
        let errors = try JAMSValidator.errors(JSONLineEncoder().encode(JSONValue.object(doc)))
        #expect(errors.contains { $0.contains("tempo") && $0.contains("confidence") }, "\(errors)")
        #expect(errors.contains { $0.contains("key_mode") && $0.contains("H:major") }, "\(errors)")
    }

    @Test(
        "JAMS: the jams Python package loads and validates the document (skipped without Python and jams)",
        .enabled(if: JAMSValidator.python != nil, "no Python with the jams package (pip install jams)"))
    func jamsPythonValidates() throws {
        let python = try #require(JAMSValidator.python)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-jams-\(getpid()).jams")
        defer { try? FileManager.default.removeItem(at: file) }
        try #require(JAMSDocument.data(SampleReport.report())).write(to: file)
        let script = """
            import sys, jams
            j = jams.load(sys.argv[1], validate=True, strict=True)
            print(len(j.annotations), len(j.annotations.search(namespace='beat')[0].data), j.file_metadata.duration)
            """
        let run = try JAMSValidator.run(python, ["-c", script, file.path])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines) == "5 39 20")
    }

    @Test("A folder of CSV, JSON, JAMS and label files; a stream of one JSON array; files replaced atomically")
    func writerFilesAndStreams() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-formats-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = SampleReport.report(path: "music/song.flac")
        for format in [ReportFormat.csv, .json, .jams, .labels] {
            try FormattedReportWriter(format: format, destination: .directory(dir.path)).write(report)
        }
        let all = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("music").path).sorted()
        #expect(all.filter { $0.hasPrefix(".") }.count == 3, "a stamp file per format that is no report: \(all)")
        let names = all.filter { !$0.hasPrefix(".") }
        #expect(
            names == [
                "song.flac.bars.txt", "song.flac.beats.txt", "song.flac.csv", "song.flac.jams", "song.flac.json",
                "song.flac.key.txt", "song.flac.sections.txt",
            ])
        let json = try Data(contentsOf: dir.appendingPathComponent("music/song.flac.json"))
        #expect(try SchemaValidator.reportSchema().validate(json).isEmpty)
        try JAMSValidator.validate(Data(contentsOf: dir.appendingPathComponent("music/song.flac.jams")))

        // A stream: the JSON array is valid after finish(), also when it is empty.
        for count in [0, 1, 3] {
            let file = dir.appendingPathComponent("stream-\(count).json").path
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(fd >= 0)
            let writer = FormattedReportWriter(format: .json, destination: .stream(fileDescriptor: fd))
            for i in 0..<count { try writer.write(SampleReport.report(path: "s\(i).flac")) }
            try writer.finish()
            close(fd)
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let array = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
            #expect(array.count == count)
            #expect(array.map { ($0["source"] as? [String: Any])?["path"] as? String ?? "" } == (0..<count).map { "s\($0).flac" })
        }
    }
}

/// Validates JAMS documents as the `jams` package does: the document against `jams_schema.json`,
/// then each annotation's observations against its namespace's `value` and `confidence` schemas.
enum JAMSValidator {
    static func resource(_ name: String) throws -> [String: Any] {
        let url = try #require(Bundle.module.url(forResource: "Resources/jams/\(name)", withExtension: nil))
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    static func errors(_ data: Data) throws -> [String] {
        var errors = SchemaValidator(root: try resource("jams_schema.json")).validate(data)
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = ["beat": "beat.json", "tempo": "tempo.json", "key_mode": "key_mode.json", "segment_open": "segment_open.json"]
        for (i, annotation) in ((doc["annotations"] as? [[String: Any]]) ?? []).enumerated() {
            let namespace = annotation["namespace"] as? String ?? ""
            guard let file = files[namespace] else { errors.append("annotation \(i): unexpected namespace \(namespace)"); continue }
            let spec = try #require(try resource(file)[namespace] as? [String: Any])
            for (j, observation) in ((annotation["data"] as? [[String: Any]]) ?? []).enumerated() {
                for field in ["value", "confidence"] {
                    guard let schema = spec[field] as? [String: Any] else { continue }
                    let value = try JSONSerialization.data(withJSONObject: [field: observation[field] ?? NSNull()])
                    for e in SchemaValidator(root: ["type": "object", "properties": [field: schema]]).validate(value) {
                        errors.append("\(namespace)[\(j)]: \(e)")
                    }
                }
            }
        }
        return errors
    }

    static func validate(_ data: Data) throws {
        let errors = try errors(data)
        #expect(errors.isEmpty, "\(errors.prefix(10))")
    }

    /// A Python that imports `jams`: the shared evaluation venv beside the clone, or python3.
    static let python: String? = {
        let root = CLI.packageRoot
        let candidates = [root.appendingPathComponent("../shared/eval/.venv/bin/python").standardized.path, "/usr/bin/python3"]
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            if let run = try? run(path, ["-c", "import jams"]), run.status == 0 { return path }
        }
        return nil
    }()

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}
