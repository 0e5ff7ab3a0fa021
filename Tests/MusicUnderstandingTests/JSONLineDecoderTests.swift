import Foundation
import Testing
@testable import MusicUnderstanding

/// ``JSONLineDecoder`` reads what `JSONDecoder` reads, to the same values, and rejects what it rejects.
@Suite struct JSONLineDecoderTests {
    struct Inner: Codable, Equatable {
        var name: String
        var values: [Double?]
    }

    struct Everything: Codable, Equatable {
        var text: String
        var flag: Bool
        var small: UInt8
        var big: Int64
        var unsigned: UInt64
        var negative: Int
        var double: Double
        var float: Float
        var missing: String?
        var null: Int?
        var nested: [Inner]
        var map: [String: [Int]]
        var data: Data
        var url: URL
        var empty: [String]
        var matrix: [[Float]]
    }

    static let document = #"""
        { "text" : "a\"b\\c\/d\n\t\u00e9\ud83c\udfb5 日", "flag": true, "small": 255, "big": 9223372036854775807,
          "unsigned": 18446744073709551615, "negative": -42, "double": -1.5e-300, "float": 0.1, "null": null,
          "nested": [ {"name": "x", "values": [1, null, 2.5e3]}, {"values": [], "name": ""} ],
          "map": {"b": [1, 2], "a": []}, "data": "AAEC/w==", "url": "https://example.org/a?b=c",
          "empty": [], "matrix": [[1, 2.5], [], [-0.0]] }
        """#

    @Test func decodesWhatJSONDecoderDecodes() throws {
        let bytes = Array(Self.document.utf8)
        let reference = try JSONDecoder().decode(Everything.self, from: Data(bytes))
        let decoded = try JSONLineDecoder().decode(Everything.self, from: bytes)
        #expect(decoded == reference)
        #expect(decoded.text == "a\"b\\c/d\n\té🎵 日")
        #expect(decoded.nested[0].values == [1, nil, 2500])
        #expect(decoded.data == Data([0, 1, 2, 255]))
        #expect(decoded.matrix[2][0].sign == .minus)
    }

    @Test func floatsAndDoublesReadBackBitForBit() throws {
        var rng = SplitMix64(seed: 7)
        let floats = (0..<2000).map { _ in Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng)) }.filter(\.isFinite)
        let doubles = (0..<2000).map { _ in Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)) }.filter(\.isFinite)
        let f = try JSONLineDecoder().decode([Float].self, from: JSONLineEncoder().encode(floats))
        let d = try JSONLineDecoder().decode([Double].self, from: JSONLineEncoder().encode(doubles))
        #expect(f.map(\.bitPattern) == floats.map(\.bitPattern))
        #expect(d.map(\.bitPattern) == doubles.map(\.bitPattern))
    }

    /// Random reports (with non-finite and out-of-range values) read by both decoders and written
    /// again give the same bytes; a well-formed report reads back to its own line.
    @Test func reportsReadAsWithJSONDecoder() throws {
        for seed in 0..<150 {
            var generator = ContractReportTests.Generator(rng: SplitMix64(seed: UInt64(seed)), wild: seed % 2 == 1)
            let line = generator.report().jsonLine()
            let reference = try JSONDecoder().decode(Report.self, from: line)
            let decoded = try JSONLineDecoder().decode(Report.self, from: line)
            #expect(decoded.jsonLine() == reference.jsonLine(), "seed \(seed)")
            #expect(decoded.jsonLine() == line, "seed \(seed)")
        }
    }

    @Test func errorsAreTheOnesJSONDecoderGives() {
        let decoder = JSONLineDecoder()
        func fails(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { try decoder.decode(Inner.self, from: Array(text.utf8)) }
        }
        fails("")
        fails(#"{"name": "x", "values": [1, 2]"#)  // truncated
        fails(#"{"name": "x", "values": [1, 2]} x"#)  // trailing bytes
        fails(#"{"name": "x", "values": [1, 2,]}"#)  // trailing comma
        fails(#"{"name": "x" "values": []}"#)  // missing comma
        fails(#"{"name": "\q", "values": []}"#)  // bad escape
        fails(#"{"name": "\ud800", "values": []}"#)  // lone surrogate
        fails("{\"name\": \"a\u{1}\", \"values\": []}")  // raw control character
        fails(#"{"name": "x", "values": [01]}"#)  // leading zero
        fails(#"{"name": "x", "values": [1e]}"#)
        fails(#"{"name": "x", "values": [+1]}"#)
        fails(#"{"name": "x", "values": [nul]}"#)
        fails(#"{"name": "x", "values": [1e999]}"#)  // does not fit
        fails(String(repeating: "[", count: 100_000))  // far too deep: an error, not a stack overflow
        #expect {
            try decoder.decode(Inner.self, from: Array(#"{"values": []}"#.utf8))
        } throws: { error in
            if case DecodingError.keyNotFound(let key, _) = error { return key.stringValue == "name" }
            return false
        }
        #expect {
            try decoder.decode(Inner.self, from: Array(#"{"name": null, "values": []}"#.utf8))
        } throws: { error in
            if case DecodingError.valueNotFound = error { return true }
            return false
        }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: Array("256".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: Array("1.5".utf8)) }
        #expect((try? decoder.decode(Int.self, from: Array("1e2".utf8))) == 100)
        #expect((try? decoder.decode(String.self, from: Array(#" "\u0041" "#.utf8))) == "A")
    }

    /// The 18 MB report of a 3-hour file costs `JSONDecoder` about 110 MB; this decoder keeps
    /// only the bytes and the value. Checked here on the structure of its work, not its memory:
    /// a long report reads back to its own bytes.
    @Test func longReportReadsBack() throws {
        typealias S = MusicUnderstandingSession
        let steps = 20_000
        let curve = (0..<steps).map { S.TimedValue<Float>(time: Double($0) / 10, value: -20 - Float($0 % 97) * 0.013) }
        var result = SessionResult()
        result.loudness = LoudnessResult(
            integrated: .init(time: 2000, value: -14), momentary: curve, shortTerm: curve,
            peak: .init(time: 3, value: -1), loudnessRange: 6.5, truePeak: -0.8)
        let line = Report(source: SourceInfo(path: "long.flac", duration: 2000), result: result, warning: nil).jsonLine()
        #expect(try JSONLineDecoder().decode(Report.self, from: line).jsonLine() == line)
    }
}
