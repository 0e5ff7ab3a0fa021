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
    /// `{"rhythm": {"foldedTempoRange": [70, 140]}, "key": {"finalChordDuration": 0}}`.
    /// Unknown keys are refused, so a misspelt setting never silently keeps its default, and a
    /// ``RhythmAnalyzer/Configuration/foldedTempoRange`` must pass ``RhythmAnalyzer/Configuration/validate(foldedTempoRange:)``,
    /// and ``RhythmAnalyzer/Configuration/minimumBPM`` must be positive and below both
    /// ``RhythmAnalyzer/Configuration/maximumBPM`` and ``RhythmAnalyzer/Configuration/maximumBeatBPM``.
    public init(overridingDefaultsWith json: Data) throws(ConfigurationError) {
        guard let patch = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { throw .notAnObject }
        guard let defaults = AnalysisConfiguration().json,
              var base = try? JSONSerialization.jsonObject(with: Data(defaults.utf8)) as? [String: Any] else {
            throw .invalidValue("the defaults cannot be encoded")
        }
        try Self.merge(patch, into: &base, path: "")
        guard let merged = try? JSONSerialization.data(withJSONObject: base) else { throw .invalidValue("not encodable") }
        do {
            self = try Self.decoder.decode(AnalysisConfiguration.self, from: merged)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.dataCorrupted(context),
                let DecodingError.valueNotFound(_, context) {
            throw .invalidValue(context.codingPath.map(\.stringValue).joined(separator: ".") + ": " + context.debugDescription)
        } catch {
            throw .invalidValue("\(error)")
        }
        if let range = rhythm.foldedTempoRange {
            do throws(TempoRangeError) { try rhythm.validate(foldedTempoRange: range) } catch {
                throw .invalidValue("rhythm.foldedTempoRange: \(error)")
            }
        }
        // Tempo bounds that leave no tempo to choose would silently give every input no beats.
        let r = rhythm
        guard r.minimumBPM.isFinite, r.maximumBPM.isFinite, r.maximumBeatBPM.isFinite, r.minimumBPM > 0,
              r.minimumBPM < r.maximumBPM, r.minimumBPM < r.maximumBeatBPM else {
            throw .invalidValue("rhythm: minimumBPM (\(r.minimumBPM)) must be positive and below maximumBPM (\(r.maximumBPM)) and maximumBeatBPM (\(r.maximumBeatBPM))")
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

    /// Replaces the members of `base` named in `patch`, recursing into objects that both have.
    private static func merge(_ patch: [String: Any], into base: inout [String: Any], path: String) throws(ConfigurationError) {
        for (key, value) in patch {
            let here = path.isEmpty ? key : path + "." + key
            // Optional settings whose default is nil are absent from the encoded defaults; they
            // are known when the type has them, which decoding checks.
            guard let current = base[key] else {
                if optionalSettings.contains(here) { base[key] = value; continue }
                throw .unknownSetting(here)
            }
            if var object = current as? [String: Any], let sub = value as? [String: Any] {
                try merge(sub, into: &object, path: here)
                base[key] = object
            } else {
                base[key] = value
            }
        }
    }

    /// Settings whose default is `nil` (absent from the encoded defaults).
    static let optionalSettings: Set<String> = ["rhythm.foldedTempoRange"]
}
