/// Sections, segments and phrases as a stage: consumes the onset curves (energy, density and
/// semitone chroma, already computed for rhythm) and the MFCCs, and builds on rhythm, whose bar
/// lines are the only places a boundary may fall.
public enum StructureStage: AnalysisStage {
    public static let type = AnalysisType.structure
    public static let features: Set<Feature> = [.onset, .chroma, .mfcc]
    public static let dependencies: Set<AnalysisType> = [.rhythm]
    public static var output: WritableKeyPath<SessionResult, StructureResult?> { \.structure }

    public static func analyze(_ context: AnalysisContext) throws(AnalysisError) -> StructureResult {
        StructureAnalyzer(configuration: context.configuration.structure).analyze(context.features, rhythm: context.results.rhythm)
    }
}
