/// Beats, bars and tempo as a stage: consumes the onset-strength curves (and their semitone
/// chroma blocks, for harmonic change, and the harmonic/percussive separation, for drums) of
/// the shared STFT.
public enum RhythmStage: AnalysisStage {
    public static let type = AnalysisType.rhythm
    public static let features: Set<Feature> = [.onset, .chroma, .harmonicPercussive]
    public static let dependencies: Set<AnalysisType> = []
    public static var output: WritableKeyPath<SessionResult, RhythmResult?> { \.rhythm }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> RhythmResult {
        RhythmAnalyzer(configuration: context.configuration.rhythm).analyze(context.features)
    }
}
