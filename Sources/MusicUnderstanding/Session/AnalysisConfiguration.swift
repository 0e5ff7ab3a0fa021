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

    /// The defaults.
    public init() {}
}
