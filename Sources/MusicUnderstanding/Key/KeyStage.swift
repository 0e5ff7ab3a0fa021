/// The key timeline as a stage: consumes the chroma and builds on rhythm, whose bar lines are
/// where the key may change.
public enum KeyStage: AnalysisStage {
    public static let type = AnalysisType.key
    public static let features: Set<Feature> = [.chroma]
    public static let dependencies: Set<AnalysisType> = [.rhythm]
    public static var output: WritableKeyPath<SessionResult, KeyResult?> { \.key }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> KeyResult {
        KeyAnalyzer(configuration: context.configuration.key).analyze(context.features, rhythm: context.results.rhythm)
    }
}
