// STUB: the key helper replaces this with the real chroma features.

/// Pitch-class profiles over time.
public struct ChromaFeatures: Sendable {
    /// Frames per second of `vectors`.
    public var frameRate: Double
    /// 12 values per frame, C first, flattened.
    public var vectors: [Float]
}

/// Computes chroma frame by frame.
final class ChromaAccumulator: SpectralFrameConsumer {
    private let configuration: FeatureConfiguration
    private var vectors: [Float] = []

    init(configuration: FeatureConfiguration) {
        self.configuration = configuration
    }

    func consume(_ frame: SpectralFrame) {}

    func finish() -> ChromaFeatures {
        ChromaFeatures(frameRate: configuration.frameRate, vectors: vectors)
    }
}
