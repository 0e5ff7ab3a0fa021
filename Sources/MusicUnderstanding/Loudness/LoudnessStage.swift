/// EBU R128 loudness as a stage: the meter runs on the native-rate PCM while decoding
/// (``Feature/loudness``); the stage hands its result on.
public enum LoudnessStage: AnalysisStage {
    public static let type = AnalysisType.loudness
    public static let features: Set<Feature> = [.loudness]
    public static let dependencies: Set<AnalysisType> = []
    public static var output: WritableKeyPath<SessionResult, LoudnessResult?> { \.loudness }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> LoudnessResult {
        guard let loudness = context.features.loudness else {
            return LoudnessMeter(sampleRate: 48_000, channels: [.frontLeft]).result()
        }
        return loudness
    }
}
