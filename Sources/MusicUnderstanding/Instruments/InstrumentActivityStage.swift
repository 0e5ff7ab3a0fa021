/// Instrument activity as a stage: consumes the harmonic/percussive/residual band energies and
/// the pitch fluctuation of the partials, both from the shared STFT.
public enum InstrumentActivityStage: AnalysisStage {
    public static let type = AnalysisType.instrumentActivity
    public static let features: Set<Feature> = [.harmonicPercussive, .pitchFluctuation]
    public static let dependencies: Set<AnalysisType> = []
    public static var output: WritableKeyPath<SessionResult, InstrumentActivityResult?> { \.instrumentActivity }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> InstrumentActivityResult {
        InstrumentActivityAnalyzer(configuration: context.configuration.instrumentActivity).analyze(context.features)
    }
}
