/// Pace as a stage: consumes the onset curves of the shared STFT and builds on rhythm, whose
/// beats give the event grid and whose bars set the resolution of the ranges.
public enum PaceStage: AnalysisStage {
    public static let type = AnalysisType.pace
    public static let features: Set<Feature> = [.onset]
    public static let dependencies: Set<AnalysisType> = [.rhythm]
    public static var output: WritableKeyPath<SessionResult, PaceResult?> { \.pace }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> PaceResult {
        PaceAnalyzer(configuration: context.configuration.pace).analyze(context.features, rhythm: context.results.rhythm)
    }
}
