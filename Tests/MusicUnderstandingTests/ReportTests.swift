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
        let report = Report(source: SourceInfo(path: "a.wav", duration: 12.5, sampleRate: 44100, channels: 2, codec: "pcm_s16le"),
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
        #expect(!validator.validate(Data(#"{"schemaVersion":1,"source":{"path":"a"},"key":{"ranges":[{"range":{"start":0,"duration":1},"value":{"tonic":"h","mode":"major"}}]}}"#.utf8)).isEmpty)
    }

    @Test func schemaCopyMatchesSharedContract() throws {
        // The project's copy must stay identical to the shared contract when it is present.
        let here = URL(fileURLWithPath: #filePath)
        let shared = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/spec/report.schema.json")
        let copy = here.deletingLastPathComponent().appendingPathComponent("Resources/report.schema.json")
        guard FileManager.default.fileExists(atPath: shared.path) else { return }
        #expect(try Data(contentsOf: shared) == Data(contentsOf: copy))
    }

    @Test func outputPathsStayInsideTheFolder() {
        #expect(ReportSink.outputPath(for: "x/y.mp3", in: "out") == "out/x/y.mp3.json")
        #expect(ReportSink.outputPath(for: "/abs/../y.mp3", in: "out/") == "out/abs/y.mp3.json")
    }
}

@Suite struct ReportWriterTests {
    /// The hand-written JSON must be the same document as the Codable encoding.
    @Test func writerMatchesCodableEncoding() throws {
        let report = Report(source: SourceInfo(path: "dir/\"quoted\"\n.wav", duration: 12.5, sampleRate: 44100, channels: 2, codec: "pcm_s16le"),
                            result: ReportTests.sampleResult(), warning: "data ends early")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let viaCodable = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? NSDictionary
        let viaWriter = try JSONSerialization.jsonObject(with: report.jsonLine()) as? NSDictionary
        #expect(viaCodable != nil)
        #expect(viaCodable == viaWriter)
        // Keys come out sorted, as with .sortedKeys.
        let line = String(decoding: report.jsonLine(), as: UTF8.self)
        let order = ["\"key\"", "\"loudness\"", "\"rhythm\"", "\"schemaVersion\"", "\"source\"", "\"warning\""].compactMap { line.range(of: $0)?.lowerBound }
        #expect(order == order.sorted() && order.count == 6)
    }

    @Test func activityAndStructureMatchCodable() throws {
        let result = SessionResult(
            structure: StructureResult(sections: [TimeRange(start: 0, duration: 10)], segments: [], phrases: [TimeRange(start: 0, duration: 2.5)]),
            pace: PaceResult(ranges: [.init(range: TimeRange(start: 0, duration: 10), value: 96.5)]),
            instrumentActivity: InstrumentActivityResult(
                ranges: [.drum: [TimeRange(start: 1, duration: 2)], .vocal: [], .bass: [], .other: []],
                activity: [.drum: [.init(time: 1, value: 0.5)], .vocal: [], .bass: [], .other: []]))
        let report = Report(source: SourceInfo(path: "a"), result: result)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let a = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: report.jsonLine()) as? NSDictionary
        #expect(a == b)
        #expect(try SchemaValidator.reportSchema().validate(report.jsonLine()).isEmpty)
    }
}
