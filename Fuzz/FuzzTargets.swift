import Foundation

// libFuzzer targets for the parsers of untrusted input that Cadenza owns. Built by
// scripts/fuzz.sh together with the library sources (one module, so internal parsers are
// reachable) and run with CADENZA_FUZZ_TARGET naming the target:
//   wav     WAVHeader (the RIFF/RF64 chunk walk behind the WAV sanity checks)
//   ogg     OggEnd (the end-of-stream page check for truncated Ogg files)
//   frames  WorkerFrame.parse (worker protocol) and the FilePath escape (exact round trip)
//   args    the command-line parser (ParsedArguments) with analyze-like options
//   report  Report JSON reading (Codable), and the written line must read back
//   plot    `cadenza plot`'s report reading (object, array or NDJSON) and SVG drawing
//   pcm     raw PCM input (the meter's --format path): AudioDecoder + loudness over random bytes
//   config  `--configuration` files: AnalysisConfiguration(overridingDefaultsWith:); an accepted
//           configuration must pass its own range check and survive the worker's JSON round trip
//   index   `cadenza index`: a report file in a folder indexed into SQLite, queried and rendered
//   export  `cadenza export`: a report read as export reads it, written in every format
// A property that fails traps, which libFuzzer records as a crash.

let fuzzTarget = ProcessInfo.processInfo.environment["CADENZA_FUZZ_TARGET"] ?? "wav"
let pcmPath = NSTemporaryDirectory() + "cadenza-fuzz-pcm-\(getpid()).raw"
let scratch = NSTemporaryDirectory() + "cadenza-fuzz-\(getpid())"
let devNull = open("/dev/null", O_WRONLY)

struct FuzzOptions: OptionGroup {
    let analyses = Option<Set<AnalysisType>>(names: ["--for"], value: "list", help: "analyses") { (text, _) throws(UsageError) in
        try parseAnalysisTypes(text)
    }
    let output = Option<String>(names: ["--output", "-o"], value: "dir", help: "folder")
    let jobs = Option<Int>(names: ["--jobs", "-j"], value: "n", help: "jobs", range: 1...1024)
    let noProgress = Flag(names: ["--no-progress"], help: "flag")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func cadenzaFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch fuzzTarget {
    case "wav":
        let header = WAVHeader(size: UInt64(bytes.count)) { offset, count in
            guard offset <= UInt64(bytes.count), UInt64(bytes.count) - offset >= UInt64(count) else { return nil }
            return Array(bytes[Int(offset)..<(Int(offset) + count)])
        }
        _ = header?.problem
        _ = header?.overclaims
    case "ogg":
        _ = OggEnd.endsWithEndOfStream(bytes)
    case "frames":
        var buffer = bytes
        if let frames = try? WorkerFrame.parse(&buffer) {
            for frame in frames {
                var again = frame.encoded
                precondition((try? WorkerFrame.parse(&again)) == [frame] || frame.isNaNProgress, "frame round trip")
            }
        }
        let escaped = FilePath.string(fromBytes: bytes)
        precondition(FilePath.bytes(of: escaped) == bytes, "FilePath round trip")
    case "args":
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let spec = CommandSpec<FuzzOptions>(name: "analyze", abstract: "fuzz", operands: "<path>...")
        if let parsed = try? ParsedArguments(arguments, spec: spec) {
            _ = parsed[\.jobs]
            _ = parsed[\.analyses]
            _ = parsed[\.noProgress]
            _ = spec.help
        }
    case "report":
        if let report = try? JSONDecoder().decode(Report.self, from: Data(bytes)) {
            let line = report.jsonLine()
            precondition((try? JSONDecoder().decode(Report.self, from: line)) != nil, "a written report reads back")
        }
    case "plot":
        if let reports = try? ReportPlot.reports(fromJSON: Data(bytes), path: "fuzz.json") {
            for report in reports.prefix(2) where report.error == nil { _ = ReportPlot(report: report).svg() }
        }
    case "pcm":
        guard bytes.count >= 2 else { return 0 }
        let rates = [8000, 11025, 22050, 44100, 48000, 96000, 4000, 768_000]
        let format = RawPCMFormat(
            sampleFormat: bytes[0] & 1 == 0 ? .f32le : .s16le,
            sampleRate: rates[Int(bytes[0] >> 1) % rates.count], channels: Int(bytes[1] % 8) + 1)
        _ = FileManager.default.createFile(atPath: pcmPath, contents: Data(bytes.dropFirst(2)))
        _ = FileAnalyzer(types: [.loudness]).report(path: pcmPath, rawFormat: format)
    case "config":
        if let configuration = try? AnalysisConfiguration(overridingDefaultsWith: Data(bytes)) {
            precondition((try? configuration.checkRanges()) != nil, "an accepted configuration is in range")
            let json = configuration.json
            precondition(json.flatMap(AnalysisConfiguration.init(json:)) != nil, "the worker's configuration round trip")
        }
    case "index":
        let folder = scratch + "/reports"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/a.json", contents: Data(bytes))
        if let index = try? CatalogIndex(path: scratch + "/catalog.sqlite") {
            _ = try? index.update(reportFolders: [folder])
            if let entries = try? index.entries() {
                for format in CatalogFormat.allCases { _ = format.render(entries) }
                for entry in entries { _ = try? index.report(reportFile: entry.reportFile) }
            }
        }
    case "export":
        if let reports = try? ReportPlot.reports(fromJSON: Data(bytes), path: "fuzz.json") {
            for format in ReportFormat.allCases {
                let writer = FormattedReportWriter(format: format, destination: .stream(fileDescriptor: devNull))
                for report in reports.prefix(2) { try? writer.write(report) }
                try? writer.finish()
            }
        }
    default:
        fatalError("unknown CADENZA_FUZZ_TARGET \(fuzzTarget)")
    }
    return 0
}

extension WorkerFrame {
    /// NaN progress cannot compare equal to itself.
    var isNaNProgress: Bool {
        if case .progress(let s) = self { return s.isNaN }
        return false
    }
}
