// STUB: the rhythm helper replaces this with the real onset-strength features.

/// Onset-strength curves at the STFT frame rate.
public struct OnsetFeatures: Sendable {
    /// Frames per second of the curves.
    public var frameRate: Double
    /// Broadband onset strength, one value per STFT frame.
    public var strength: [Float]
}

/// Computes onset strength frame by frame.
final class OnsetStrengthAccumulator: SpectralFrameConsumer {
    private let configuration: FeatureConfiguration
    private var strength: [Float] = []

    init(configuration: FeatureConfiguration) {
        self.configuration = configuration
    }

    func consume(_ frame: SpectralFrame) {
        strength.append(0)
    }

    func finish() -> OnsetFeatures {
        OnsetFeatures(frameRate: configuration.frameRate, strength: strength)
    }
}
