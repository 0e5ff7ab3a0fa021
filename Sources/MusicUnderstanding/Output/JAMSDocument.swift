import Foundation

/// A report as a JAMS document (JSON Annotated Music Specification, Humphrey et al. 2014,
/// "JAMS: A JSON Annotated Music Specification for Reproducible MIR Research", ISMIR), the format
/// mir_eval, the `jams` package and MIR datasets read. Version 0.3 layout: `file_metadata`,
/// `annotations` (each with `namespace`, `annotation_metadata`, `data` as a list of sparse
/// observations `{time, duration, value, confidence}`, `time`, `duration`, `sandbox`), `sandbox`.
///
/// Annotations written (only those the report has):
/// - `beat`: one zero-length observation per beat, value = position in the bar (1 = downbeat,
///   `null` without bars), confidence `null`;
/// - `tempo`: one observation over the whole file, value = BPM, confidence 1 (the contract has no
///   tempo confidence; the namespace requires a number);
/// - `key_mode`: one observation per key range, value `C:major`, `F#:minor`;
/// - `segment_open` twice: sections labelled with their repetition labels (`A`, `B`),
///   annotation_rules `repetition labels`, and with their functions (`verse`, `chorus`),
///   annotation_rules `section functions`.
public enum JAMSDocument {
    /// The JAMS version the documents follow.
    public static let jamsVersion = "0.3.5"

    /// The JAMS document of a report; `nil` for an error record (there is nothing to annotate).
    public static func document(_ report: Report) -> JSONValue? {
        guard report.error == nil, let result = report.result else { return nil }
        let duration = report.source.duration ?? estimatedDuration(result)
        var annotations: [JSONValue] = []

        if let rhythm = result.rhythm {
            let positions = LabelTracks.beatPositions(rhythm)
            let data = zip(rhythm.beats, positions).map { time, position in
                observation(time: time, duration: 0, value: position.map { .number(Double($0)) } ?? .null, confidence: .null)
            }
            annotations.append(annotation("beat", data, duration: duration, rules: "beat tracking; value = position in the bar"))
            if let bpm = rhythm.beatsPerMinute, bpm.isFinite, bpm > 0 {
                let value = ReportRounding.level(Double(bpm))
                annotations.append(
                    annotation(
                        "tempo", [observation(time: 0, duration: duration ?? 0, value: .number(value), confidence: .number(1))],
                        duration: duration, rules: "global tempo"))
            }
        }
        if let key = result.key {
            let data = key.ranges.map {
                observation(time: $0.range.start, duration: $0.range.duration, value: .string($0.value.jamsValue), confidence: .null)
            }
            annotations.append(annotation("key_mode", data, duration: duration, rules: "key timeline"))
        }
        if let structure = result.structure {
            for (rules, words) in [("repetition labels", structure.sectionLabels), ("section functions", structure.sectionFunctions)] {
                let data = structure.sections.enumerated().map { i, range in
                    observation(
                        time: range.start, duration: range.duration,
                        value: .string(words.flatMap { i < $0.count ? $0[i] : nil } ?? "section \(i + 1)"), confidence: .null)
                }
                annotations.append(annotation("segment_open", data, duration: duration, rules: rules))
            }
        }

        let title = ((report.source.path as NSString).lastPathComponent as NSString).deletingPathExtension
        var metadata: [String: JSONValue] = [
            "title": .string(title), "artist": .string(""), "release": .string(""),
            "identifiers": .object([:]), "jams_version": .string(jamsVersion),
        ]
        if let duration { metadata["duration"] = .number(ReportRounding.time(duration)) }
        return .object([
            "file_metadata": .object(metadata),
            "annotations": .array(annotations),
            "sandbox": .object(["cadenza": .object(["path": .string(report.source.path)])]),
        ])
    }

    /// The document as compact JSON (one line), written by ``JSONLineEncoder``.
    public static func data(_ report: Report) -> Data? {
        guard let document = document(report) else { return nil }
        return try? JSONLineEncoder().encode(document)
    }

    private static func observation(time: Double, duration: Double, value: JSONValue, confidence: JSONValue) -> JSONValue {
        .object([
            "time": .number(ReportRounding.time(max(0, time))), "duration": .number(ReportRounding.time(max(0, duration))),
            "value": value, "confidence": confidence,
        ])
    }

    private static func annotation(_ namespace: String, _ data: [JSONValue], duration: Double?, rules: String) -> JSONValue {
        .object([
            "namespace": .string(namespace),
            "data": .array(data),
            "time": .number(0),
            "duration": duration.map { .number(ReportRounding.time($0)) } ?? .null,
            "sandbox": .object([:]),
            "annotation_metadata": .object([
                "curator": .object(["name": .string(""), "email": .string("")]),
                "annotator": .object([:]),
                "version": .string(""),
                "corpus": .string(""),
                "annotation_tools": .string("Cadenza (MusicUnderstanding)"),
                "annotation_rules": .string(rules),
                "validation": .string(""),
                "data_source": .string("automatic analysis"),
            ]),
        ])
    }

    /// The end of the last thing the result places in time, when the source has no duration.
    private static func estimatedDuration(_ result: SessionResult) -> Double? {
        let ends = [result.rhythm?.beats.last, result.key?.ranges.last?.range.end, result.structure?.sections.last?.end]
        return ends.compactMap { $0 }.max()
    }
}
