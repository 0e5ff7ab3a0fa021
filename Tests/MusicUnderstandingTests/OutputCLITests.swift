import Foundation
import Testing
@testable import MusicUnderstanding

/// `cadenza analyze --format ...` end to end.
@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct OutputCLITests {
    static func temporaryFolder(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// 8 s of drums at 120 BPM (mono 22.05 kHz WAV).
    static func drumFile(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("drums.wav")
        try WAVFile.write(ActivitySynth.drums(seconds: 8, bpm: 120), rate: Int(ActivitySynth.rate), channels: 1, to: url)
        return url
    }

    @Test("--format csv: a header and one row per input, the same values as the NDJSON report, errors as rows")
    func csv() async throws {
        let inputs = ["Fixtures/tone_2s_stereo.flac", "Fixtures/random_bytes.flac"]
        let run = try await CLI.run(["analyze", "--for", "key,loudness", "--format", "csv", "--jobs", "1"] + inputs)
        #expect(run.status == 1, "one input is undecodable: \(run.err)")
        let rows = run.out.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 3 && rows[0] == CSVTable.header.trimmingCharacters(in: .newlines))
        let ndjson = try await CLI.run(["analyze", "--for", "key,loudness", inputs[0]])
        let report = try JSONDecoder().decode(Report.self, from: Data(ndjson.out.utf8))
        let good = try #require(rows.first { $0.hasPrefix(inputs[0]) })
        #expect(good + "\r\n" == CSVTable.row(report))
        #expect(good.split(separator: ",", omittingEmptySubsequences: false).count == 10)
        let bad = try #require(rows.first { $0.hasPrefix(inputs[1]) })
        #expect(bad.contains("random_bytes.flac: not decodable audio"))
    }

    @Test("--format json: one pretty JSON array of schema-valid reports (and [] for no input)")
    func json() async throws {
        let run = try await CLI.run([
            "analyze", "--for", "loudness", "--format", "json",
            "Fixtures/tone_2s_stereo.ogg", "Fixtures/tone_2s_stereo.mp3", "Fixtures/no-such.wav",
        ])
        #expect(run.status == 1)
        #expect(run.out.hasPrefix("[\n  {\n    \""), "pretty: \(run.out.prefix(40))")
        let array = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [Any])
        #expect(array.count == 3)
        let validator = try SchemaValidator.reportSchema()
        for element in array {
            #expect(validator.validate(try JSONSerialization.data(withJSONObject: element)).isEmpty)
        }
        let dir = try Self.temporaryFolder("empty")
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = try await CLI.run(["analyze", "--format", "json", dir.path])
        #expect(empty.out == "[]\n")
    }

    @Test("--format jams and labels with --output: DIR/<input>.jams (valid JAMS) and one label file per track")
    func jamsAndLabelsInAFolder() async throws {
        let dir = try Self.temporaryFolder("jams")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.drumFile(in: dir)
        let out = dir.appendingPathComponent("out")
        for format in ["jams", "labels"] {
            let run = try await CLI.run(["analyze", "--for", "rhythm,structure", "--format", format, "--output", out.path, input.path])
            #expect(run.status == 0, "\(run.err)")
        }
        let base = ReportSink.outputPath(for: input.path, in: out.path).dropLast(".json".count)
        let jams = try Data(contentsOf: URL(fileURLWithPath: base + ".jams"))
        try JAMSValidator.validate(jams)
        let doc = try #require(try JSONSerialization.jsonObject(with: jams) as? [String: Any])
        let beat = try #require((doc["annotations"] as? [[String: Any]])?.first { $0["namespace"] as? String == "beat" })
        let beatTimes = ((beat["data"] as? [[String: Any]]) ?? []).map { CLI.number($0["time"]) }
        #expect((14...17).contains(beatTimes.count), "8 s at 120 BPM: \(beatTimes)")

        let beats = try String(contentsOfFile: base + ".beats.txt", encoding: .utf8).split(separator: "\n")
        #expect(beats.count == beatTimes.count)
        for (line, time) in zip(beats, beatTimes) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            #expect(fields.count == 3 && abs((Double(fields[0]) ?? -1) - time) <= 5e-5 && fields[0] == fields[1], "\(line) vs \(time)")
        }
        let bars = try String(contentsOfFile: base + ".bars.txt", encoding: .utf8).split(separator: "\n")
        #expect(bars.first?.hasSuffix("\t1") == true && (3...5).contains(bars.count))
        #expect(FileManager.default.fileExists(atPath: base + ".sections.txt"))
        #expect(!FileManager.default.fileExists(atPath: base + ".key.txt"), "key was not analysed")
    }

    @Test("--format labels on stdout: one merged track, one input only; an unknown format is a usage error naming it")
    func labelsOnStdoutAndUsage() async throws {
        // Chords C, Am, F, G, 2 s each (a steady tone has no key to label).
        let dir = try Self.temporaryFolder("labels")
        defer { try? FileManager.default.removeItem(at: dir) }
        let chords = dir.appendingPathComponent("chords.wav")
        try WAVFile.write(ActivitySynth.chords(seconds: 8), rate: Int(ActivitySynth.rate), channels: 1, to: chords)
        let run = try await CLI.run(["analyze", "--for", "key", "--format", "labels", chords.path])
        #expect(run.status == 0)
        #expect(run.out == "0.000000\t8.000000\tkey C major 8B\n", "\(run.out)")
        // One track per stream: several inputs would merge into one, so they need --output.
        let two = try await CLI.run(["analyze", "--for", "key", "--format", "labels", chords.path, "Fixtures/random_bytes.flac"])
        #expect(two.status == 2 && two.out.isEmpty && two.err.contains("--output"))
        let broken = try await CLI.run(["analyze", "--for", "key", "--format", "labels", "Fixtures/random_bytes.flac"])
        #expect(broken.status == 1 && broken.out.isEmpty)
        #expect(broken.err.contains("random_bytes.flac"), "error records have no place in a label track: named on stderr")
        let bad = try await CLI.run(["analyze", "--format", "xml", "Fixtures"])
        #expect(bad.status == 2 && bad.err.contains("unknown format 'xml'"))
    }
}
