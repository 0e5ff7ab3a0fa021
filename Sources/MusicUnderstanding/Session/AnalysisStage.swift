/// What an analysis stage is given: the shared features of the input, the results of the
/// analyses it builds on, the configuration, and a way to notice cancellation.
public struct AnalysisContext: Sendable {
    /// The shared features this stage declared in ``AnalysisStage/features`` (others are `nil`).
    public var features: SharedFeatures
    /// Every analysis's settings.
    public var configuration: AnalysisConfiguration
    /// Results of this stage's ``AnalysisStage/dependencies`` (every other result is `nil`).
    public var results: SessionResult
    /// Checked between stages; long stages may check it too.
    public var cancellation: CancellationToken

    /// Duration of the input in seconds (the one duration every stage and the report use).
    public var duration: Double { features.duration }
}

/// One analysis: it declares the shared features it consumes and the analyses it builds on,
/// and turns them into one result type of the report contract.
///
/// The pipeline runs the closure of the requested analyses over ``dependencies`` in dependency
/// order and computes each declared ``Feature`` once per input, only when a stage that runs
/// declares it. To add an analysis: a folder with the analysis and its stage, a
/// ``AnalysisConfiguration`` field for its settings, and one line in ``AnalysisRegistry/stages``.
public protocol AnalysisStage: Sendable {
    /// The result type (``KeyResult``, ``RhythmResult``, ...).
    associatedtype Output: Sendable & Codable
    /// The analysis this stage produces.
    static var type: AnalysisType { get }
    /// The shared features it consumes.
    static var features: Set<Feature> { get }
    /// The analyses whose results it reads from ``AnalysisContext/results``.
    static var dependencies: Set<AnalysisType> { get }
    /// Where its result goes in the session result.
    static var output: WritableKeyPath<SessionResult, Output?> { get }
    /// Runs the analysis.
    static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> Output
}

/// The analyses this version implements, in no particular order (the pipeline sorts them by
/// their dependencies).
public enum AnalysisRegistry {
    /// Every registered stage.
    public static let stages: [any AnalysisStage.Type] = [
        LoudnessStage.self,
        RhythmStage.self,
        KeyStage.self,
        StructureStage.self,
        InstrumentActivityStage.self,
        PaceStage.self,
    ]

    /// The stage producing `type`, if this version has one.
    public static func stage(for type: AnalysisType) -> (any AnalysisStage.Type)? {
        stages.first { $0.type == type }
    }

    /// The stages needed for `types` (the requested ones and everything they build on), each
    /// after the stages it depends on; `nil` when a requested or needed analysis is unavailable.
    ///
    /// Among the requested analyses, those whose features no other requested analysis reads
    /// (instrument activity's separation and pitch motion, loudness) are planned first, so that
    /// the pipeline frees their features before the shared ones are analysed (results do not
    /// depend on the order: a stage reads only its features and its dependencies' results).
    static func plan(for types: Set<AnalysisType>) throws(AnalysisError) -> [any AnalysisStage.Type] {
        let requested = AnalysisType.allCases.filter(types.contains)
        func isPrivate(_ type: AnalysisType) -> Bool {
            guard let own = stage(for: type)?.features else { return false }
            return requested.allSatisfy { $0 == type || (stage(for: $0)?.features.isDisjoint(with: own) ?? true) }
        }
        let order = requested.filter(isPrivate) + requested.filter { !isPrivate($0) }
        var ordered: [any AnalysisStage.Type] = []
        var done = Set<AnalysisType>()
        var visiting = Set<AnalysisType>()
        func visit(_ type: AnalysisType) throws(AnalysisError) {
            if done.contains(type) { return }
            guard let stage = stage(for: type) else { throw .unavailable(type) }
            guard visiting.insert(type).inserted else { return }  // a cycle: registry bug, ignore the back edge
            for dependency in stage.dependencies.sorted(by: { $0.rawValue < $1.rawValue }) { try visit(dependency) }
            visiting.remove(type)
            done.insert(type)
            ordered.append(stage)
        }
        for type in order { try visit(type) }
        return ordered
    }
}

extension AnalysisStage {
    /// Runs the stage and stores its result.
    static func run(in context: AnalysisContext, into result: inout SessionResult) throws(AnalysisError) {
        try context.cancellation.check()
        result[keyPath: output] = try analyze(context)
    }

    /// Copies this stage's result from one session result to another.
    static func copyResult(from source: SessionResult, into target: inout SessionResult) {
        target[keyPath: output] = source[keyPath: output]
    }

    /// Writes this stage's result, when present, as the report member named after its ``type``.
    static func encodeResult(of result: SessionResult, into container: inout KeyedEncodingContainer<ReportMemberKey>) throws {
        try container.encodeIfPresent(result[keyPath: output], forKey: ReportMemberKey(type.rawValue))
    }

    /// Reads this stage's result, when present, from the report member named after its ``type``.
    static func decodeResult(from container: KeyedDecodingContainer<ReportMemberKey>, into result: inout SessionResult) throws {
        result[keyPath: output] = try container.decodeIfPresent(Output.self, forKey: ReportMemberKey(type.rawValue))
    }
}

/// The name of a report member: a fixed field (`source`, `error`, ...) or an analysis's
/// ``AnalysisType`` raw value.
struct ReportMemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
