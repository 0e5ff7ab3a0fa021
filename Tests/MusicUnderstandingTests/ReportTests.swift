import Foundation
import Testing
@testable import MusicUnderstanding

/// The report contract: encoding shape, nulls for minus infinity, schema validity.
@Suite struct ReportTests {
    typealias S = MusicUnderstandingSession

    static func sampleResult() -> SessionResult {
        SessionResult(
            key: KeyResult(ranges: [.init(range: TimeRange(start: 0, duration: 12.5), value: .init(tonic: .dFlat, mode: .major))]),
            rhythm: RhythmResult(beats: [0.5, 1.0, 1.5], bars: [0.5], beatsPerMinute: 120, beatsPerBar: 4),
            loudness: LoudnessResult(
                integrated: .init(time: 12.5, value: -23.0),
                momentary: [.init(time: 0.1, value: -.infinity), .init(time: 0.2, value: -30.25)],
                shortTerm: [.init(time: 0.1, value: -.infinity)],
                peak: .init(time: 3.2, value: -1.5), loudnessRange: 5.5, truePeak: -1.2))
    }

    @Test func reportValidatesAgainstSchema() throws {
        let report = Report(
            source: SourceInfo(path: "a.wav", duration: 12.5, sampleRate: 44100, channels: 2, codec: "pcm_s16le"),
            result: Self.sampleResult())
        let errors = try SchemaValidator.reportSchema().validate(report.jsonLine())
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func minusInfinityIsNull() throws {
        let line = String(decoding: Report(source: SourceInfo(path: "a.wav"), result: Self.sampleResult()).jsonLine(), as: UTF8.self)
        #expect(line.contains("{\"time\":0.1,\"value\":null}"))
        #expect(!line.contains("inf"))
        #expect(!line.contains("\n"))
    }

    @Test func unrequestedAnalysesAreAbsent() throws {
        let result = SessionResult(rhythm: RhythmResult(beats: [], bars: [], beatsPerMinute: nil))
        let object = try JSONSerialization.jsonObject(with: Report(source: SourceInfo(path: "x"), result: result).jsonLine()) as? [String: Any]
        #expect(object?["rhythm"] != nil)
        #expect(object?["key"] == nil)
        #expect(object?["loudness"] == nil)
        let rhythm = object?["rhythm"] as? [String: Any]
        #expect(rhythm?["beatsPerMinute"] is NSNull)
    }

    @Test func errorRecordValidatesAndNamesFile() throws {
        let record = Report(path: "music/broken.mp3", error: AnalysisError.decoding(.corruptData(path: "music/broken.mp3", reason: "invalid data")))
        let data = record.jsonLine()
        #expect(try SchemaValidator.reportSchema().validate(data).isEmpty)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "decodeFailed")
        #expect((error?["message"] as? String)?.contains("music/broken.mp3") == true)
    }

    @Test func roundTripsThroughCodable() throws {
        let report = Report(source: SourceInfo(path: "a.wav"), result: Self.sampleResult())
        let decoded = try JSONDecoder().decode(Report.self, from: report.jsonLine())
        #expect(decoded.result?.loudness?.momentary.first?.value == -.infinity)
        #expect(decoded.result?.key?.ranges.first?.value.tonic == .dFlat)
        #expect(decoded.jsonLine() == report.jsonLine())
    }

    @Test func validatorRejectsBrokenReports() throws {
        let validator = try SchemaValidator.reportSchema()
        #expect(!validator.validate(Data(#"{"schemaVersion":2,"source":{"path":"a"}}"#.utf8)).isEmpty)
        #expect(!validator.validate(Data(#"{"schemaVersion":1,"source":{"path":"a"},"rhythm":{"beats":[],"bars":[]}}"#.utf8)).isEmpty)
        #expect(
            !validator.validate(
                Data(
                    #"{"schemaVersion":1,"source":{"path":"a"},"key":{"ranges":[{"range":{"start":0,"duration":1},"value":{"tonic":"h","mode":"major"}}]}}"#
                        .utf8)
            ).isEmpty)
    }

    /// Extra optional fields the project adds to the shared contract (README, "Extra fields"):
    /// section name and property name.
    static let schemaExtras: [(section: String, property: String)] = [
        ("structure", "sectionLabels"), ("structure", "sectionFunctions"),
        ("key", "confidence"), ("key", "rangeConfidences"),
        ("source", "size"), ("source", "modified"),
        ("rhythm", "beatsPerBar"), ("rhythm", "tempoCandidates"), ("rhythm", "tempoCurve"),
    ]
    /// Extra optional top-level members (README, "Extra fields").
    static let topLevelExtras = ["analyzer"]

    @Test func schemaCopyMatchesSharedContract() throws {
        // The project's copy is the shared contract plus documented optional fields, none required.
        let here = URL(fileURLWithPath: #filePath)
        let shared = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/spec/report.schema.json")
        let copy = here.deletingLastPathComponent().appendingPathComponent("Resources/report.schema.json")
        guard FileManager.default.fileExists(atPath: shared.path) else { return }
        let original = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shared)) as? NSDictionary)
        var ours = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: copy)) as? [String: Any])
        var properties = try #require(ours["properties"] as? [String: Any])
        for extra in Self.schemaExtras {
            var section = try #require(properties[extra.section] as? [String: Any], "\(extra.section)")
            var sectionProperties = try #require(section["properties"] as? [String: Any])
            #expect(sectionProperties.removeValue(forKey: extra.property) != nil, "\(extra) documented but absent")
            #expect(!((section["required"] as? [String]) ?? []).contains(extra.property), "\(extra) must stay optional")
            section["properties"] = sectionProperties
            properties[extra.section] = section
        }
        for extra in Self.topLevelExtras {
            #expect(properties.removeValue(forKey: extra) != nil, "\(extra) documented but absent")
            #expect(!((ours["required"] as? [String]) ?? []).contains(extra), "\(extra) must stay optional")
        }
        ours["properties"] = properties
        #expect(NSDictionary(dictionary: ours).isEqual(to: original as? [AnyHashable: Any] ?? [:]))
    }

    @Test func sectionFunctionsAreTheSchemasNames() throws {
        // The enum the library reads functions with names exactly what the schema allows.
        let copy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources/report.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: copy)) as? [String: Any])
        let structure = try #require((schema["properties"] as? [String: Any])?["structure"] as? [String: Any])
        let functions = try #require((structure["properties"] as? [String: Any])?["sectionFunctions"] as? [String: Any])
        let names = try #require((functions["items"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(names) == Set(SectionFunction.allCases.map(\.rawValue)))
        #expect(names.count == SectionFunction.allCases.count)
        let result = StructureResult(
            sections: [TimeRange(start: 0, duration: 1), TimeRange(start: 1, duration: 1)], segments: [], phrases: [],
            sectionFunctions: ["silence", "coda"])
        #expect(result.function(ofSection: 0) == .silence)
        #expect(result.function(ofSection: 1) == nil)
        #expect(result.function(ofSection: 2) == nil)
    }

    @Test func sampleReportIsWrittenAgainByteForByte() throws {
        // The committed sample, read and written again, comes out unchanged.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Reports/sample-report.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        var committed = try Data(contentsOf: url)
        while committed.last == UInt8(ascii: "\n") { committed.removeLast() }
        let report = try JSONDecoder().decode(Report.self, from: committed)
        #expect(report.jsonLine() == committed)
    }

    /// Ranges that meet still meet after rounding to 0.1 ms: the written `start + duration` of
    /// one range is the written `start` of the next, at any sub-millisecond boundary.
    @Test func meetingRangesStayContiguousInTheReport() throws {
        var rng = SplitMix64(seed: 5)
        var boundaries: [Double] = [0]
        for _ in 0..<200 { boundaries.append((boundaries.last ?? 0) + Double.random(in: 0.3...20, using: &rng)) }
        let ranges = zip(boundaries, boundaries.dropFirst()).map { TimeRange(start: $0, end: $1) }
        let data = try JSONEncoder().encode(ranges)
        guard let written = try JSONSerialization.jsonObject(with: data) as? [[String: Double]] else {
            Issue.record("not an array of ranges"); return
        }
        for (a, b) in zip(written, written.dropFirst()) {
            let end = ((a["start"] ?? 0) + (a["duration"] ?? 0)) * 10_000
            #expect(end.rounded() == ((b["start"] ?? -1) * 10_000).rounded(), "\(a) then \(b)")
        }
    }

    @Test func outputPathsStayInsideTheFolder() {
        #expect(ReportSink.outputPath(for: "x/y.mp3", in: "out") == "out/x/y.mp3.json")
        #expect(ReportSink.outputPath(for: "/abs/../y.mp3", in: "out/") == "out/abs/y.mp3.json")
    }
}

/// JSONEncoder as the report's reference: sorted keys, `/` unescaped (as reports are written).
func referenceEncoder(escapingSlashes: Bool = false) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = escapingSlashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}

func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

/// The streaming encoder against JSONEncoder, value kind by value kind.
@Suite struct EncoderReportTests {
    func expectSameAsJSONEncoder<T: Encodable>(_ value: T, escapingSlashes: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try referenceEncoder(escapingSlashes: escapingSlashes).encode(value)
        let streamed = try JSONLineEncoder(escapesSlashes: escapingSlashes).encode(value)
        #expect(text(streamed) == text(reference), sourceLocation: sourceLocation)
    }

    @Test func numbersAreFormattedAsJSONEncoderFormatsThem() throws {
        let fixed: [Double] = [
            0.1, 1e-7, 1e21, -0.0, 0, 45.0, -45, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNormalMagnitude, 1e15, 1e16, 9_007_199_254_740_992, 123_456_789_012_345.6, 0.000123, 1e-5, 2.5e-5, 100,
        ]
        #expect(text(try JSONLineEncoder().encode([0.1, 1e-7, 1e21, -0.0, 45.0])) == "[0.1,1e-07,1e+21,-0,45]")
        var rng = SplitMix64(seed: 1)
        var doubles = fixed
        for _ in 0..<3000 {
            let bits = Double(bitPattern: rng.next())
            if bits.isFinite { doubles.append(bits) }
            doubles.append(Double.random(in: -1e6...1e6, using: &rng))
            doubles.append((Double.random(in: -200...200, using: &rng) * 1000).rounded() / 1000)
            doubles.append(Double(Int64.random(in: -1 << 60...1 << 60, using: &rng)))
        }
        try expectSameAsJSONEncoder(doubles)
        let floats = doubles.map { Float($0) }.filter(\.isFinite) + [Float(0.1), 1e-7, -0.0, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        try expectSameAsJSONEncoder(floats)
        let integers = (0..<500).map { _ in Int64(bitPattern: rng.next()) } + [.min, .max, 0, -1, 9, 10]
        try expectSameAsJSONEncoder(integers)
        try expectSameAsJSONEncoder([UInt64.max, 0, 7])
        try expectSameAsJSONEncoder([Int8.min, Int8.max])
        try expectSameAsJSONEncoder([true, false])
    }

    @Test func nonFiniteNumbersAreNull() throws {
        #expect(text(try JSONLineEncoder().encode([Double.nan, .infinity, -.infinity, 1])) == "[null,null,null,1]")
        #expect(text(try JSONLineEncoder().encode([Float.nan, .infinity, -.infinity])) == "[null,null,null]")
        #expect(text(try JSONLineEncoder().encode(["a": Double.nan])) == #"{"a":null}"#)
    }

    @Test func stringsAreEscapedAsJSONEncoderEscapesThem() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let fixed = [controls, "a/b\"c\\d", "\u{7F}é\u{2028}\u{2029}😀\u{FEFF}", "", "\u{301}e\u{301}"]
        try expectSameAsJSONEncoder(fixed)
        try expectSameAsJSONEncoder(fixed, escapingSlashes: true)
        #expect(text(try JSONLineEncoder().encode("a/b\u{8}\u{C}\u{1}")) == #""a/b\b\f\u0001""#)
        let pool: [Unicode.Scalar] = ["a", "Z", "/", "\\", "\"", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "ß", "€", "😀", "\u{10FFFF}", " "]
        var rng = SplitMix64(seed: 2)
        let strings = (0..<500).map { _ in
            String(String.UnicodeScalarView((0..<Int.random(in: 0...12, using: &rng)).map { _ in pool[Int.random(in: 0..<pool.count, using: &rng)] }))
        }
        try expectSameAsJSONEncoder(strings)
        try expectSameAsJSONEncoder(strings, escapingSlashes: true)
    }

    @Test func keysAreSortedAsJSONEncoderSortsThem() throws {
        let alphabet: [Character] = ["a", "A", "b", "B", "_", "0", "9", "é", "z", "~", " "]
        var rng = SplitMix64(seed: 3)
        for _ in 0..<200 {
            var object: [String: [String: Int]] = [:]
            for _ in 0..<Int.random(in: 0...8, using: &rng) {
                let key = String((0..<Int.random(in: 0...4, using: &rng)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
                object[key, default: [:]][String(key.reversed())] = Int.random(in: -5...5, using: &rng)
            }
            try expectSameAsJSONEncoder(object)
        }
    }

    struct Awkward: Encodable {
        enum K: String, CodingKey { case b, a, c, zz, aa }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            var list = c.nestedUnkeyedContainer(forKey: .b)
            var inner = c.nestedContainer(keyedBy: K.self, forKey: .a)
            try c.encode(1, forKey: .c)
            try list.encode(5)
            var deep = list.nestedContainer(keyedBy: K.self)
            try list.encode("after")
            try inner.encode(6, forKey: .zz)
            try deep.encode([1.5], forKey: .aa)
            try inner.encode(7, forKey: .aa)
            try c.encode(2, forKey: .zz)
            try c.encode(3, forKey: .zz)  // the last value for a key stays
            var sup = c.superEncoder().singleValueContainer()
            try sup.encode("super")
            var again = encoder.container(keyedBy: K.self)  // the same object
            try again.encodeNil(forKey: .aa)
        }
    }

    struct Empty: Encodable { func encode(to encoder: any Encoder) throws {} }

    @Test func anyEncodableComesOutAsFromJSONEncoder() throws {
        try expectSameAsJSONEncoder(Awkward())
        try expectSameAsJSONEncoder([Awkward(), Awkward()])
        try expectSameAsJSONEncoder(["e": Empty()])
        try expectSameAsJSONEncoder(["d": Data([0, 1, 2, 250]), "e": Data()])
        try expectSameAsJSONEncoder([URL(fileURLWithPath: "/tmp/a b.wav")], escapingSlashes: true)
        try expectSameAsJSONEncoder([Decimal(string: "1.50"), Decimal(-3), nil])
        try expectSameAsJSONEncoder([Date(timeIntervalSinceReferenceDate: 12.25)])
        try expectSameAsJSONEncoder([[Int]](), escapingSlashes: false)
        try expectSameAsJSONEncoder([[Int?]]([[], [nil, 1], [2]]))
        try expectSameAsJSONEncoder([3: "x", 1: "y"])
        try expectSameAsJSONEncoder(Optional<Int>.none)
        try expectSameAsJSONEncoder("fragment")
        try expectSameAsJSONEncoder(ReportTests.sampleResult())
    }

    struct Failing: Encodable {
        enum K: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try c.encode(1, forKey: .a)
            throw EncodingError.invalidValue(1, .init(codingPath: c.codingPath, debugDescription: "no"))
        }
    }

    struct Recovering: Encodable {
        enum K: String, CodingKey { case x, y }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try? c.encode(Failing(), forKey: .x)
            var list = c.nestedUnkeyedContainer(forKey: .y)
            try? list.encode(Failing())
            try list.encode(2)
        }
    }

    @Test func errorsPropagateAndLeaveNoTrace() throws {
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode([Failing()]) }
        #expect(text(try JSONLineEncoder().encode(Recovering())) == #"{"y":[2]}"#)
    }

    struct PathProbe: Encodable {
        final class Box: @unchecked Sendable { var paths: [String] = [] }
        let box: Box
        enum K: String, CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            box.paths.append(encoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))
        }
    }

    @Test func codingPathsNameTheValue() throws {
        let box = PathProbe.Box()
        _ = try JSONLineEncoder().encode(["k": [PathProbe(box: box), PathProbe(box: box)]])
        #expect(box.paths == ["k.0", "k.1"])
    }
}

/// The report contract at its edges, and many random reports.
@Suite struct ContractReportTests {
    typealias S = MusicUnderstandingSession

    func activity(_ values: [Float]) -> [S.TimedValue<Float>] {
        values.enumerated().map { S.TimedValue(time: Double($0.offset) * 0.1, value: $0.element) }
    }

    @Test func activityValuesFollowTheContract() throws {
        let result = SessionResult(
            instrumentActivity: InstrumentActivityResult(
                ranges: [.drum: [TimeRange(start: 1, duration: 2)]],
                activity: [.drum: activity([1.7, -0.3, .nan, .infinity, -.infinity, 0.5, 0.12345])]))
        let line = Report(source: SourceInfo(path: "a"), result: result).jsonLine()
        #expect(try SchemaValidator.reportSchema().validate(line).isEmpty)
        let written = text(line)
        #expect(
            written.contains(
                #""drum":[{"time":0,"value":1},{"time":0.1,"value":0},{"time":0.2,"value":0},{"time":0.3,"value":1},{"time":0.4,"value":0},{"time":0.5,"value":0.5},{"time":0.6,"value":0.123}]"#
            ))
        #expect(written.contains(#""ranges":{"bass":[],"drum":[{"duration":2,"start":1}],"other":[],"vocal":[]}"#))
        #expect(written.contains(#""activity":{"bass":[],"drum":"#))
        let decoded = try JSONDecoder().decode(Report.self, from: line)
        #expect(decoded.result?.instrumentActivity?.activity[.drum]?.map(\.value) == [1, 0, 0, 1, 0, 0.5, 0.123])
        #expect(decoded.result?.instrumentActivity?.ranges[.vocal] == [])
        #expect(decoded.jsonLine() == line)
        // JSONEncoder goes through the same encode(to:): the same bytes.
        #expect(try referenceEncoder().encode(Report(source: SourceInfo(path: "a"), result: result)) == line)
    }

    @Test func emptyAndAbsentMapsGiveAllFourInstruments() throws {
        for maps in [([:], [:]), ([.vocal: []], [.other: []])]
            as [([InstrumentActivityResult.Instrument: [TimeRange]], [InstrumentActivityResult.Instrument: [S.TimedValue<Float>]])]
        {
            let line = Report(source: SourceInfo(path: "a"), result: SessionResult(instrumentActivity: .init(ranges: maps.0, activity: maps.1))).jsonLine()
            #expect(try SchemaValidator.reportSchema().validate(line).isEmpty)
            #expect(
                text(line).contains(
                    #""instrumentActivity":{"activity":{"bass":[],"drum":[],"other":[],"vocal":[]},"ranges":{"bass":[],"drum":[],"other":[],"vocal":[]}}"#))
        }
    }

    @Test func nonFiniteValuesAreNullOrLeftOut() throws {
        let loudness = LoudnessResult(
            integrated: .init(time: 1, value: .nan), momentary: activity([.infinity, -.infinity, .nan, -23]),
            shortTerm: [], peak: .init(time: 0, value: -.infinity), loudnessRange: .nan, truePeak: .infinity)
        for bpm in [Float.nan, .infinity, -.infinity, -5, 0, nil] {
            let report = Report(
                source: SourceInfo(path: "a", duration: .nan),
                result: SessionResult(rhythm: RhythmResult(beats: [0.5], bars: [], beatsPerMinute: bpm), loudness: loudness))
            let line = report.jsonLine()
            #expect(try SchemaValidator.reportSchema().validate(line).isEmpty)
            let written = text(line)
            #expect(written.contains(#""beatsPerMinute":null"#))
            #expect(written.contains(#""source":{"path":"a"}"#))
            #expect(
                written.contains(
                    #""loudnessRange":null,"momentary":[{"time":0,"value":null},{"time":0.1,"value":null},{"time":0.2,"value":null},{"time":0.3,"value":-23}]"#)
            )
            #expect(try referenceEncoder().encode(report) == line)
            let decoded = try JSONDecoder().decode(Report.self, from: line)
            #expect(decoded.result?.loudness?.truePeak == -.infinity)
            #expect(decoded.source.duration == nil)
            #expect(decoded.jsonLine() == line)
        }
    }

    @Test func controlAndUnicodeCharactersInPaths() throws {
        let path = "música/日本/\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}\"quoted\"\\back\n\r\t😀.wav"
        let report = Report(source: SourceInfo(path: path, duration: 1.23456789), result: ReportTests.sampleResult(), warning: "tab\there")
        let line = report.jsonLine()
        #expect(try SchemaValidator.reportSchema().validate(line).isEmpty)
        #expect(try referenceEncoder().encode(report) == line)
        #expect(text(line).contains(#""path":"música/日本/\u0000\u0001\b\f\u001f\#u{7F}\"quoted\"\\back\n\r\t😀.wav""#))
        let decoded = try JSONDecoder().decode(Report.self, from: line)
        #expect(decoded.source.path == path)
        #expect(decoded.source.duration == 1.234568)
        #expect(decoded.warning == "tab\there")
    }

    @Test func longReportsStream() throws {
        let n = 108_000
        func value(_ i: Int) -> Float { i % 1000 == 0 ? -Float.infinity : -18 - Float(i % 300) * 0.011 }
        let momentary = (0..<n).map { i in S.TimedValue<Float>(time: Double(i + 4) * 0.1, value: -20 - Float(i % 400) * 0.0173) }
        let shortTerm = (0..<n).map { i in S.TimedValue<Float>(time: Double(i + 30) * 0.1, value: value(i)) }
        let loudness = LoudnessResult(
            integrated: .init(time: 10_800, value: -19.5), momentary: momentary, shortTerm: shortTerm,
            peak: .init(time: 12.3, value: -0.4), loudnessRange: 7.25, truePeak: -0.2)
        let report = Report(source: SourceInfo(path: "long.flac", duration: 10_800), result: SessionResult(loudness: loudness))
        let line = report.jsonLine()
        // Checked on the bytes: decoding 216,000 values takes seconds in a debug build (the
        // random reports check decoding); a tenth of the curves is decoded below.
        #expect(line.count > 6_800_000 && line.count < 6_900_000)
        #expect(
            line.range(
                of: Data(
                    #"{"time":10800.3,"value":-26.903}],"peak":{"time":12.3,"value":-0.4},"shortTerm":[{"time":3,"value":null},{"time":3.1,"value":-18.011}"#
                        .utf8)) != nil)
        #expect(
            line.suffix(120).range(
                of: Data(#"{"time":10802.9,"value":-21.289}],"truePeak":-0.2},"schemaVersion":1,"source":{"duration":10800,"path":"long.flac"}}"#.utf8)) != nil)
        let tenth = LoudnessResult(
            integrated: loudness.integrated, momentary: Array(momentary.prefix(n / 10)), shortTerm: Array(shortTerm.prefix(n / 10)),
            peak: loudness.peak, loudnessRange: loudness.loudnessRange, truePeak: loudness.truePeak)
        let tenthLine = Report(source: report.source, result: SessionResult(loudness: tenth)).jsonLine()
        let decoded = try JSONDecoder().decode(Report.self, from: tenthLine)
        #expect(decoded.result?.loudness?.momentary.count == n / 10)
        #expect(decoded.result?.loudness?.shortTerm[1000].value == -.infinity)
        #expect(abs((decoded.result?.loudness?.momentary[123].value ?? 0) - momentary[123].value) <= 0.0005)
        #expect(decoded.jsonLine() == tenthLine)
        #expect(line.first == UInt8(ascii: "{") && line.last == UInt8(ascii: "}"))
        #expect(!line.contains(UInt8(ascii: "\n")))
    }

    // MARK: Random reports

    struct Generator {
        var rng: SplitMix64
        /// Whether to put non-finite and out-of-range values where the contract has a rule for them.
        var wild: Bool

        mutating func bool(_ p: Double = 0.5) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
        mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
        mutating func time() -> Double { Double.random(in: 0...12_000, using: &rng) }
        mutating func level() -> Float {
            if wild, bool(0.1) { return [Float.nan, .infinity, -.infinity][int(0...2)] }
            return Float.random(in: -120...6, using: &rng)
        }
        mutating func activityValue() -> Float {
            if wild, bool(0.1) { return [Float.nan, .infinity, -.infinity][int(0...2)] }
            return Float.random(in: wild ? -0.5...1.5 : 0...1, using: &rng)
        }
        mutating func times() -> [Double] { (0..<int(0...20)).map { _ in time() } }
        mutating func range() -> TimeRange { TimeRange(start: time(), duration: Double.random(in: 0...300, using: &rng)) }
        mutating func ranges() -> [TimeRange] { (0..<int(0...6)).map { _ in range() } }
        mutating func timed() -> S.TimedValue<Float> { .init(time: time(), value: level()) }
        mutating func text() -> String {
            let pool: [Unicode.Scalar] = ["a", "b", "/", ".", "\\", "\"", "\n", "\u{0}", "\u{1B}", "é", "😀", "日", " "]
            return String(String.UnicodeScalarView((0..<int(1...16)).map { _ in pool[int(0...(pool.count - 1))] }))
        }
        mutating func instruments<V>(_ make: (inout Generator) -> V) -> [InstrumentActivityResult.Instrument: V] {
            var map: [InstrumentActivityResult.Instrument: V] = [:]
            for instrument in InstrumentActivityResult.Instrument.allCases where bool(0.7) { map[instrument] = make(&self) }
            return map
        }

        mutating func report() -> Report {
            let source = SourceInfo(
                path: text(), duration: bool(0.8) ? (wild && bool(0.2) ? .nan : Double.random(in: 0...11_000, using: &rng)) : nil,
                sampleRate: bool(0.8) ? int(8000...192_000) : nil, channels: bool(0.8) ? int(1...8) : nil,
                codec: bool(0.8) ? ["mp3", "flac", "pcm_s16le"][int(0...2)] : nil)
            if bool(0.1) { return Report(path: source.path, error: AnalysisError.decoding(.corruptData(path: source.path, reason: text()))) }
            let tonics = KeyResult.Tonic.allCases
            var result = SessionResult()
            if bool(0.7) {
                result.key = KeyResult(
                    ranges: (0..<int(0...5)).map { _ in
                        .init(range: range(), value: .init(tonic: tonics[int(0...(tonics.count - 1))], mode: bool() ? .major : .minor))
                    })
            }
            if bool(0.7) {
                var bpm: Float? = bool(0.8) ? Float.random(in: 40...220, using: &rng) : nil
                if wild, bool(0.3) { bpm = [Float.nan, .infinity, -.infinity, 0, -3][int(0...4)] }
                result.rhythm = RhythmResult(beats: times(), bars: times(), beatsPerMinute: bpm, beatsPerBar: bool() ? int(2...7) : nil)
            }
            if bool(0.5) { result.structure = StructureResult(sections: ranges(), segments: ranges(), phrases: ranges()) }
            if bool(0.5) {
                result.pace = PaceResult(ranges: (0..<int(0...5)).map { _ in .init(range: range(), value: Double.random(in: 0...400, using: &rng)) })
            }
            if bool(0.6) {
                result.instrumentActivity = InstrumentActivityResult(
                    ranges: instruments { $0.ranges() },
                    activity: instruments { g in (0..<g.int(0...10)).map { _ in .init(time: g.time(), value: g.activityValue()) } })
            }
            if bool(0.7) {
                result.loudness = LoudnessResult(
                    integrated: timed(), momentary: (0..<int(0...30)).map { _ in timed() },
                    shortTerm: (0..<int(0...30)).map { _ in timed() }, peak: timed(),
                    loudnessRange: wild && bool(0.2) ? .nan : Float.random(in: 0...30, using: &rng), truePeak: level())
            }
            return Report(source: source, result: result, warning: bool(0.2) ? text() : nil)
        }
    }

    /// `decoded` is `original` as the contract writes it: times to 0.1 ms, levels to 0.001,
    /// non-finite levels as minus infinity, activity clamped, absent instruments empty.
    func expectMatches(_ decoded: Report, _ original: Report) {
        func close(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool { abs(a - b) <= tolerance * (1 + 1e-9) + abs(b) * 1e-15 }
        func level(_ a: Float, _ b: Float) -> Bool { b.isFinite ? close(Double(a), Double(b), 0.0005 + Double(b.ulp)) : a == -.infinity }
        func times(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { close($0, $1, 0.00005) } }
        func ranges(_ a: [TimeRange], _ b: [TimeRange]) -> Bool {
            // Start and end are each rounded to 0.1 ms; the duration is their difference.
            a.count == b.count && zip(a, b).allSatisfy { close($0.start, $1.start, 0.00005) && close($0.end, $1.end, 0.00005 + 1e-9 * abs($1.end)) }
        }
        func timed(_ a: [S.TimedValue<Float>], _ b: [S.TimedValue<Float>]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { close($0.time, $1.time, 0.00005) && level($0.value, $1.value) }
        }
        #expect(decoded.source.path == original.source.path)
        #expect(decoded.source.codec == original.source.codec && decoded.source.sampleRate == original.source.sampleRate)
        if let d = original.source.duration, d.isFinite {
            #expect(decoded.source.duration.map { close($0, d, 5e-7) } == true)
        } else {
            #expect(decoded.source.duration == nil)
        }
        #expect(decoded.error == original.error && decoded.warning == original.warning)
        let a = decoded.result, b = original.result
        #expect((a?.key?.ranges.map(\.value)) == (b?.key?.ranges.map(\.value)))
        #expect(ranges(a?.key?.ranges.map(\.range) ?? [], b?.key?.ranges.map(\.range) ?? []))
        if let br = b?.rhythm {
            #expect(times(a?.rhythm?.beats ?? [], br.beats) && times(a?.rhythm?.bars ?? [], br.bars))
            if let bpm = br.beatsPerMinute, bpm.isFinite, bpm > 0 {
                #expect(a?.rhythm?.beatsPerMinute.map { level($0, bpm) } == true)
            } else {
                #expect(a?.rhythm?.beatsPerMinute == nil)
            }
            #expect(a?.rhythm?.beatsPerBar == br.beatsPerBar)
        } else {
            #expect(a?.rhythm == nil)
        }
        #expect(ranges(a?.structure?.sections ?? [], b?.structure?.sections ?? []) && ranges(a?.structure?.phrases ?? [], b?.structure?.phrases ?? []))
        #expect((a?.pace?.ranges.map(\.value)) == (b?.pace?.ranges.map(\.value)))
        if let bi = b?.instrumentActivity {
            for instrument in InstrumentActivityResult.Instrument.allCases {
                #expect(ranges(a?.instrumentActivity?.ranges[instrument] ?? [.init(start: -1, duration: 0)], bi.ranges[instrument] ?? []))
                let expected = (bi.activity[instrument] ?? []).map { S.TimedValue(time: $0.time, value: InstrumentActivityResult.contractActivity($0.value)) }
                #expect(timed(a?.instrumentActivity?.activity[instrument] ?? [.init(time: -1, value: 0)], expected))
            }
        } else {
            #expect(a?.instrumentActivity == nil)
        }
        if let bl = b?.loudness, let al = a?.loudness {
            #expect(timed([al.integrated, al.peak], [bl.integrated, bl.peak]))
            #expect(timed(al.momentary, bl.momentary) && timed(al.shortTerm, bl.shortTerm))
            #expect(level(al.loudnessRange, bl.loudnessRange) && level(al.truePeak, bl.truePeak))
        } else {
            #expect(a?.loudness == nil && b?.loudness == nil)
        }
    }

    @Test(arguments: [false, true]) func randomReports(wild: Bool) throws {
        let validator = try SchemaValidator.reportSchema()
        var generator = Generator(rng: SplitMix64(seed: wild ? 0xC0FFEE : 0xCADE_0A), wild: wild)
        var comparedWithJSONEncoder = 0
        for _ in 0..<150 {
            let report = generator.report()
            let line = report.jsonLine()
            let errors = validator.validate(line)
            #expect(errors.isEmpty, "\(errors) in \(text(line))")
            // Every non-finite value is turned into null (or left out) by encode(to:), so JSONEncoder
            // accepts every report; it must give the same bytes.
            if let reference = try? referenceEncoder().encode(report) {
                comparedWithJSONEncoder += 1
                #expect(reference == line, "\(text(reference))\n\(text(line))")
            }
            let decoded = try JSONDecoder().decode(Report.self, from: line)
            expectMatches(decoded, report)
            #expect(decoded.jsonLine() == line, "written again, the decoded report gives the same line")
        }
        #expect(comparedWithJSONEncoder == 150)
    }
}
