import Foundation

/// The settings of every analysis and of the shared features, passed to a session
/// (``MusicUnderstandingSession/init(url:configuration:)``), a ``FileAnalyzer`` or a batch.
///
/// Every default is the value the analyses were evaluated with; change one field and keep the rest:
///
/// ```swift
/// var configuration = AnalysisConfiguration()
/// configuration.key.finalChordDuration = 0   // no closing-chord decision (faded songs)
/// let session = try await MusicUnderstandingSession(url: songURL, configuration: configuration)
/// ```
public struct AnalysisConfiguration: Sendable, Hashable, Codable {
    /// The shared STFT (rate of the mono analysis signal, frame and hop size).
    public var features = FeatureConfiguration()
    /// Onset-strength settings (the SuperFlux filterbank shared by rhythm, pace and structure).
    public var onset = OnsetConfiguration()
    /// Harmonic pitch-class profile settings (the chroma shared by key, rhythm and structure).
    public var chroma = ChromaConfiguration()
    /// Mel filterbank and MFCC settings (timbre, for structure and instrument activity).
    public var mel = MelConfiguration()
    /// Harmonic/percussive/residual separation settings (instrument activity, pace).
    public var harmonicPercussive = HarmonicPercussiveConfiguration()
    /// Tempo, beat and downbeat tracking.
    public var rhythm = RhythmAnalyzer.Configuration()
    /// Key estimation and the key timeline.
    public var key = KeyAnalyzer.Configuration()
    /// Sections, segments, phrases and their labels on the bar grid.
    public var structure = StructureAnalyzer.Configuration()
    /// Who plays when: vocal, drum, bass and other activity.
    public var instrumentActivity = InstrumentActivityAnalyzer.Configuration()
    /// How fast the music feels: perceived events per minute over time.
    public var pace = PaceAnalyzer.Configuration()
    /// The loudness meter (true peak, loudness-range stride, whether the result keeps the
    /// momentary and short-term series).
    public var loudness = LoudnessMeter.Configuration()

    /// The defaults.
    public init() {}
}

/// Why a JSON configuration (``AnalysisConfiguration/init(overridingDefaultsWith:)``) is unusable.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a JSON object.
    case notAnObject
    /// A key that no setting has, as a dotted path (`rhythm.bogus`).
    case unknownSetting(String)
    /// A value of the wrong type or out of its domain, with the decoder's explanation.
    case invalidValue(String)

    public var description: String {
        switch self {
        case .notAnObject: return "the configuration is not a JSON object"
        case .unknownSetting(let path): return "unknown setting '\(path)'"
        case .invalidValue(let reason): return "invalid setting: \(reason)"
        }
    }
}

extension AnalysisConfiguration {
    /// The defaults with the settings named in `json` replaced: a JSON object of the same shape
    /// as the configuration, holding only what changes, e.g.
    /// `{"rhythm": {"level": {"foldedTempoRange": [70, 140]}}, "key": {"finalChordDuration": 0}}`.
    /// Unknown keys are refused, so a misspelt setting never silently keeps its default, and a
    /// ``RhythmAnalyzer/Configuration/LevelSettings/foldedTempoRange`` must pass ``RhythmAnalyzer/Configuration/validate(foldedTempoRange:)``,
    /// and ``RhythmAnalyzer/Configuration/TempoSettings/minimumBPM`` must be positive and below both
    /// ``RhythmAnalyzer/Configuration/TempoSettings/maximumBPM`` and ``RhythmAnalyzer/Configuration/TempoSettings/maximumBeatBPM``.
    /// The rhythm settings are grouped by step (`{"rhythm": {"tempo": {"minimumBPM": 50}}}`); the
    /// flat keys of 0.7 and earlier (`{"rhythm": {"minimumBPM": 50}}`) are read as well.
    public init(overridingDefaultsWith json: Data) throws(ConfigurationError) {
        guard let patch = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { throw .notAnObject }
        guard let defaults = AnalysisConfiguration().json,
            var base = try? JSONSerialization.jsonObject(with: Data(defaults.utf8)) as? [String: Any]
        else {
            throw .invalidValue("the defaults cannot be encoded")
        }
        try Self.merge(Self.groupingFlatRhythmKeys(patch, defaults: base), into: &base, path: "")
        guard let merged = try? JSONSerialization.data(withJSONObject: base) else { throw .invalidValue("not encodable") }
        do {
            self = try Self.decoder.decode(AnalysisConfiguration.self, from: merged)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.dataCorrupted(context),
            let DecodingError.valueNotFound(_, context)
        {
            throw .invalidValue(context.codingPath.map(\.stringValue).joined(separator: ".") + ": " + context.debugDescription)
        } catch {
            throw .invalidValue("\(error)")
        }
        if let range = rhythm.level.foldedTempoRange {
            do throws(TempoRangeError) { try rhythm.validate(foldedTempoRange: range) } catch {
                throw .invalidValue("rhythm.level.foldedTempoRange: \(error)")
            }
        }
        try checkRanges()
        // Tempo bounds that leave no tempo to choose would silently give every input no beats.
        let r = rhythm.tempo
        guard r.minimumBPM.isFinite, r.maximumBPM.isFinite, r.maximumBeatBPM.isFinite, r.minimumBPM > 0,
            r.minimumBPM < r.maximumBPM, r.minimumBPM < r.maximumBeatBPM
        else {
            throw .invalidValue(
                "rhythm.tempo: minimumBPM (\(r.minimumBPM)) must be positive and below maximumBPM (\(r.maximumBPM)) and maximumBeatBPM (\(r.maximumBeatBPM))")
        }
    }

    /// The whole configuration as compact JSON with sorted keys (non-finite numbers as the
    /// strings `inf`, `-inf`, `nan`), the form `cadenza worker --configuration` reads.
    public var json: String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The configuration in `json` as ``json`` writes it (every setting present); `nil` when it
    /// does not parse.
    public init?(json: String) {
        guard let c = try? Self.decoder.decode(AnalysisConfiguration.self, from: Data(json.utf8)) else { return nil }
        self = c
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    /// `patch` with the flat rhythm keys of 0.7 and earlier (`{"rhythm": {"minimumBPM": 50}}`)
    /// moved into their step's group (`{"rhythm": {"tempo": {"minimumBPM": 50}}}`), the group of
    /// each read from the encoded `defaults` and ``optionalSettings``. A setting given both ways
    /// is refused; unknown keys are left for ``merge(_:into:path:)`` to name.
    static func groupingFlatRhythmKeys(_ patch: [String: Any], defaults: [String: Any]) throws(ConfigurationError) -> [String: Any] {
        guard var rhythm = patch["rhythm"] as? [String: Any] else { return patch }
        var groupOf: [String: String] = [:]
        for (group, settings) in defaults["rhythm"] as? [String: Any] ?? [:] {
            for key in (settings as? [String: Any] ?? [:]).keys { groupOf[key] = group }
        }
        for path in optionalSettings {
            let parts = path.split(separator: ".").map(String.init)
            if parts.count == 3, parts[0] == "rhythm" { groupOf[parts[2]] = parts[1] }
        }
        for key in rhythm.keys.sorted() {
            guard let group = groupOf[key], let value = rhythm[key] else { continue }
            var settings = rhythm[group] as? [String: Any] ?? [:]
            guard settings[key] == nil else {
                throw .invalidValue("rhythm.\(key) and rhythm.\(group).\(key) are the same setting, given twice")
            }
            settings[key] = value
            rhythm[group] = settings
            rhythm[key] = nil
        }
        var grouped = patch
        grouped["rhythm"] = rhythm
        return grouped
    }

    /// Replaces the members of `base` named in `patch`, recursing into objects that both have.
    private static func merge(_ patch: [String: Any], into base: inout [String: Any], path: String) throws(ConfigurationError) {
        for (key, value) in patch {
            let here = path.isEmpty ? key : path + "." + key
            // Optional settings whose default is nil are absent from the encoded defaults; they
            // are known when the type has them, which decoding checks.
            guard let current = base[key] else {
                if optionalSettings.contains(here) { base[key] = value; continue }
                if let replacement = replacedSettings[here] { throw .invalidValue("\(here) was replaced \(replacement)") }
                throw .unknownSetting(here)
            }
            if var object = current as? [String: Any], let sub = value as? [String: Any] {
                try merge(sub, into: &object, path: here)
                base[key] = object
            } else {
                // A number must be written as a JSON number: the strings "nan" and "inf" that the
                // worker's own encoding uses are not settings a person may give.
                if current is NSNumber || current is Double || current is Int, let text = value as? String {
                    throw .invalidValue("\(here): expected a number, not the string '\(text)'")
                }
                base[key] = value
            }
        }
    }

    /// Settings of earlier versions that no longer exist, each with what replaced it: a
    /// configuration that gives one is refused with this text rather than as unknown.
    static let replacedSettings: [String: String] = {
        let silenceDepth =
            "in 0.8.17 by rhythm.beats.silenceDepth, decibels under the loud frames (default 70), which no longer depends on the recording's gain"
        // The grouped key and the flat one of 0.7 and earlier.
        return ["rhythm.beats.silenceRatio": silenceDepth, "rhythm.silenceRatio": silenceDepth]
    }()

    /// The largest configuration file read, bytes (a configuration holds only the settings that
    /// differ from the defaults: a few hundred bytes; a pipe that never ends is refused).
    public static let maximumSize = 64 * 1024

    /// The valid range of the settings that size buffers or divide: outside it an analysis
    /// would allocate without bound, loop forever or crash, so the configuration is refused
    /// as a whole, naming the setting. The table is documented in `docs/configuration.md`.
    static let ranges: [(path: String, range: ClosedRange<Double>, get: @Sendable (AnalysisConfiguration) -> Double)] = [
        ("features.sampleRate", 8_000...96_000, { $0.features.sampleRate }),
        ("features.frameSize", 256...16_384, { Double($0.features.frameSize) }),
        ("features.hopSize", 32...4_096, { Double($0.features.hopSize) }),
        ("mel.bandCount", 8...256, { Double($0.mel.bandCount) }),
        ("mel.coefficientCount", 2...64, { Double($0.mel.coefficientCount) }),
        ("mel.minFrequency", 0...20_000, { $0.mel.minFrequency }),
        ("mel.maxFrequency", 100...48_000, { $0.mel.maxFrequency }),
        ("mel.floorBelowLoudest", 0...200, { Double($0.mel.floorBelowLoudest) }),
        ("structure.pulselessUnitSeconds", 0.5...60, { $0.structure.pulselessUnitSeconds }),
        ("structure.boundarySnapSeconds", 0...10, { $0.structure.boundarySnapSeconds }),
        ("structure.minimumBoundaryChange", 0...100, { $0.structure.minimumBoundaryChange }),
        ("structure.strongNovelty", 0...10, { $0.structure.strongNovelty }),
        ("structure.homogeneityClarity", 0...1000, { $0.structure.homogeneityClarity }),
        ("structure.maximumUnitSeconds", 0.05...10, { $0.structure.maximumUnitSeconds }),
        ("structure.silenceDepth", 0...200, { $0.structure.silenceDepth }),
        ("structure.minimumSilenceSeconds", 0...60, { $0.structure.minimumSilenceSeconds }),
        ("structure.noiseFloorDepth", 0...200, { $0.structure.noiseFloorDepth }),
        ("rhythm.tempoCurve.tempoCurveWindowBeats", 2...256, { Double($0.rhythm.tempoCurve.tempoCurveWindowBeats) }),
        ("rhythm.level.octaveVotePeriod", 0.1...2, { $0.rhythm.level.octaveVotePeriod }),
        ("rhythm.tempoCurve.tempoCurveDrift", 0...1, { $0.rhythm.tempoCurve.tempoCurveDrift }),
        ("rhythm.downbeats.harmonicContextBeats", 1...64, { Double($0.rhythm.downbeats.harmonicContextBeats) }),
        ("rhythm.downbeats.alternativeHarmonicContextBeats", 0...64, { Double($0.rhythm.downbeats.alternativeHarmonicContextBeats) }),
        ("rhythm.beats.activationFloor", 0.001...0.5, { $0.rhythm.beats.activationFloor }),
        ("rhythm.beats.impulsiveActivationFloor", 0.001...0.5, { $0.rhythm.beats.impulsiveActivationFloor }),
        ("rhythm.beats.periodPriorWeight", 0...1000, { $0.rhythm.beats.periodPriorWeight }),
        ("rhythm.beats.tempoRegimeChange", 1...4, { $0.rhythm.beats.tempoRegimeChange }),
        ("rhythm.beats.tempoRegimeSeconds", 1...3600, { $0.rhythm.beats.tempoRegimeSeconds }),
        ("rhythm.beats.tempoRegimeWindowSeconds", 5...120, { $0.rhythm.beats.tempoRegimeWindowSeconds }),
        ("rhythm.beats.tempoRegimeTexture", 0...1, { Double($0.rhythm.beats.tempoRegimeTexture) }),
        ("rhythm.beats.tempoRegimeSwitchCost", 0...10_000, { $0.rhythm.beats.tempoRegimeSwitchCost }),
        ("rhythm.beats.impulsivePeriodPriorWeight", 0...1000, { $0.rhythm.beats.impulsivePeriodPriorWeight }),
        ("rhythm.placement.beatSmoothingDegree", 1...2, { Double($0.rhythm.placement.beatSmoothingDegree) }),
        ("rhythm.downbeats.backbeatCorrelation", -1...1, { $0.rhythm.downbeats.backbeatCorrelation }),
        ("rhythm.level.salienceTie", 0.5...1, { $0.rhythm.level.salienceTie }),
        ("rhythm.level.drummedSalienceTie", 0.5...1, { $0.rhythm.level.drummedSalienceTie }),
        ("rhythm.level.drummedShare", 0...1, { $0.rhythm.level.drummedShare }),
        ("rhythm.level.drumPercussiveRatio", -60...20, { $0.rhythm.level.drumPercussiveRatio }),
        ("rhythm.level.backbeatAlternation", 0...1, { $0.rhythm.level.backbeatAlternation }),
        ("rhythm.tempo.startFrames", 0...64, { Double($0.rhythm.tempo.startFrames) }),
        ("rhythm.tempo.pitchedShare", 0...1, { $0.rhythm.tempo.pitchedShare }),
        ("rhythm.tempo.minimumHarmonicSalience", 0...1000, { $0.rhythm.tempo.minimumHarmonicSalience }),
        ("rhythm.beats.harmonicChangeBeatShare", 0...1, { Double($0.rhythm.beats.harmonicChangeBeatShare) }),
        ("rhythm.beats.lowBandTrackingWeight", 0...16, { Double($0.rhythm.beats.lowBandTrackingWeight) }),
        ("rhythm.beats.silenceDepth", 0...200, { $0.rhythm.beats.silenceDepth }),
        ("rhythm.beats.freePassageBeats", 0...1024, { Double($0.rhythm.beats.freePassageBeats) }),
        ("rhythm.beats.freePassageShare", 0...1, { $0.rhythm.beats.freePassageShare }),
        ("rhythm.beats.freePassageBeatTolerance", 0...0.5, { $0.rhythm.beats.freePassageBeatTolerance }),
        ("rhythm.beats.freePassageOffBeatShare", 0...1, { $0.rhythm.beats.freePassageOffBeatShare }),
    ]

    /// Checks every numeric setting is finite and the settings of ``ranges`` lie in their range;
    /// the hop must not exceed the frame, the mel bands must fit below the Nyquist frequency,
    /// and every meter must be 2 to 16 beats per bar.
    func checkRanges() throws(ConfigurationError) {
        for (path, range, get) in Self.ranges {
            let v = get(self)
            guard v.isFinite, range.contains(v) else {
                throw .invalidValue("\(path): \(Self.text(v)) is outside \(Self.text(range.lowerBound))...\(Self.text(range.upperBound))")
            }
        }
        guard features.hopSize <= features.frameSize else {
            throw .invalidValue("features.hopSize (\(features.hopSize)) must not exceed features.frameSize (\(features.frameSize))")
        }
        guard mel.minFrequency < mel.maxFrequency else {
            throw .invalidValue("mel.minFrequency (\(mel.minFrequency)) must be below mel.maxFrequency (\(mel.maxFrequency))")
        }
        guard !rhythm.downbeats.meters.isEmpty, rhythm.downbeats.meters.count <= 16, rhythm.downbeats.meters.allSatisfy({ (2...16).contains($0) }) else {
            throw .invalidValue("rhythm.downbeats.meters: \(rhythm.downbeats.meters.prefix(8)) must list 1 to 16 meters of 2 to 16 beats per bar")
        }
        // Every other number: finite (no setting means anything at infinity or NaN).
        guard let encoded = try? JSONSerialization.jsonObject(with: Data((json ?? "{}").utf8)) as? [String: Any] else { return }
        func walk(_ value: Any, _ path: String) throws(ConfigurationError) {
            if let object = value as? [String: Any] {
                for (k, v) in object { try walk(v, path.isEmpty ? k : path + "." + k) }
            } else if let array = value as? [Any] {
                for v in array { try walk(v, path) }
            } else if let s = value as? String, ["inf", "-inf", "nan"].contains(s) {
                throw .invalidValue("\(path): \(s) is not a finite number")
            }
        }
        try walk(encoded, "")
    }

    private static func text(_ v: Double) -> String { v == v.rounded() && v.magnitude < 1e15 ? String(Int(v)) : String(v) }

    /// Settings whose default is `nil` (absent from the encoded defaults).
    static let optionalSettings: Set<String> = ["rhythm.level.foldedTempoRange"]
}
