/// Instrument activity as a stage: consumes the harmonic/percussive/residual band energies, the
/// pitch fluctuation of the partials and the log mel bands (for the vocal variance), all from the shared STFT.
public enum InstrumentActivityStage: AnalysisStage {
    public static let type = AnalysisType.instrumentActivity
    public static let features: Set<Feature> = [.harmonicPercussive, .pitchFluctuation, .melBands]
    public static let dependencies: Set<AnalysisType> = []
    public static var output: WritableKeyPath<SessionResult, InstrumentActivityResult?> { \.instrumentActivity }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> InstrumentActivityResult {
        InstrumentActivityAnalyzer(configuration: context.configuration.instrumentActivity).analyze(context.features)
    }
}
