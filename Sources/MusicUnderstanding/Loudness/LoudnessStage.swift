/// EBU R128 loudness as a stage: the meter runs on the native-rate PCM while decoding
/// (``Feature/loudness``, ``LoudnessExtractor``); the stage hands its result on.
public enum LoudnessStage: AnalysisStage {
    public static let type = AnalysisType.loudness
    public static let features: Set<Feature> = [.loudness]
    public static let dependencies: Set<AnalysisType> = []
    public static var output: WritableKeyPath<SessionResult, LoudnessResult?> { \.loudness }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> LoudnessResult {
        context.features.loudness ?? .ofNoAudio
    }
}
