import Foundation

/// Settings of the shared spectral representation that the musical analyses consume.
public struct FeatureConfiguration: Sendable, Hashable {
    /// Rate of the mono analysis signal, Hz.
    public var sampleRate: Double = 22_050
    /// STFT frame length in samples (Hann window).
    public var frameSize: Int = 2048
    /// STFT hop in samples; `sampleRate / hopSize` frames per second.
    public var hopSize: Int = 256

    /// STFT frames per second.
    public var frameRate: Double { sampleRate / Double(hopSize) }
    /// Width of one STFT bin in Hz.
    public var binWidth: Double { sampleRate / Double(frameSize) }
    /// Number of STFT bins, `frameSize / 2 + 1`.
    public var binCount: Int { frameSize / 2 + 1 }

    /// The default configuration.
    public init() {}
}

/// One STFT frame handed to the feature consumers.
///
/// Frame `index` is centred on time `index * hopSize / sampleRate` (the signal is padded with
/// half a frame of zeros at both ends, as in librosa's centred STFT).
struct SpectralFrame {
    /// Frame number, from 0.
    var index: Int
    /// Magnitude of each bin (`binCount` values) of the Hann-windowed frame.
    var magnitude: [Float]
}

/// Something that turns STFT frames into a feature (onset strength, chroma, ...).
protocol SpectralFrameConsumer: AnyObject {
    /// Consumes the next frame; frames arrive in order, each once.
    func consume(_ frame: SpectralFrame)
}

/// The shared features of one input, computed in one STFT pass.
public struct SharedFeatures: Sendable {
    /// The STFT settings the features were computed with.
    public var configuration: FeatureConfiguration
    /// Number of STFT frames.
    public var frameCount: Int
    /// Duration of the analysed mono signal, seconds.
    public var duration: Double
    /// Onset strength curves (present when rhythm or key was requested).
    public var onset: OnsetFeatures?
    /// Chroma (present when key was requested).
    public var chroma: ChromaFeatures?
}

/// The shared feature stage: takes the mono analysis signal in chunks of any size, runs one
/// STFT over it (FFTW, planned once) and feeds every frame to the feature consumers.
///
/// Memory stays bounded: only one frame of samples is held; consumers keep compact per-frame
/// features.
final class FeatureStage {
    let configuration: FeatureConfiguration
    private let fft: RealFFT
    private let window: [Float]
    private var pending: [Float]
    private var pendingStart = 0
    private var frameIndex = 0
    private var samplesIn = 0
    private var frame: [Float]
    private var power: [Float]
    private var magnitude: [Float]
    private let onsetAccumulator: OnsetStrengthAccumulator?
    private let chromaAccumulator: ChromaAccumulator?
    private var consumers: [any SpectralFrameConsumer] = []

    /// Creates the stage; only the requested features are computed.
    init(configuration: FeatureConfiguration = .init(), onset: Bool, chroma: Bool) {
        self.configuration = configuration
        let n = configuration.frameSize
        fft = RealFFT(size: n)
        // Periodic Hann window.
        window = (0..<n).map { i in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))) }
        pending = [Float](repeating: 0, count: n / 2)  // centre padding
        pending.reserveCapacity(4 * n)
        frame = [Float](repeating: 0, count: n)
        power = [Float](repeating: 0, count: configuration.binCount)
        magnitude = [Float](repeating: 0, count: configuration.binCount)
        onsetAccumulator = onset ? OnsetStrengthAccumulator(configuration: configuration) : nil
        chromaAccumulator = chroma ? ChromaAccumulator(configuration: configuration) : nil
        if let onsetAccumulator { consumers.append(onsetAccumulator) }
        if let chromaAccumulator { consumers.append(chromaAccumulator) }
    }

    /// Appends mono samples at `configuration.sampleRate`.
    func append(_ samples: [Float]) {
        samplesIn += samples.count
        let start = pending.count
        pending.append(contentsOf: samples)
        // Damaged input can carry NaN or infinity: one bad sample must not poison every feature.
        for i in start..<pending.count where !pending[i].isFinite { pending[i] = 0 }
        processFrames()
    }

    /// Ends the input and returns the features.
    func finish() -> SharedFeatures {
        // Pad so that the last real sample falls in a frame centre region.
        pending.append(contentsOf: [Float](repeating: 0, count: configuration.frameSize / 2))
        processFrames()
        return SharedFeatures(
            configuration: configuration,
            frameCount: frameIndex,
            duration: Double(samplesIn) / configuration.sampleRate,
            onset: onsetAccumulator?.finish(),
            chroma: chromaAccumulator?.finish()
        )
    }

    private func processFrames() {
        let n = configuration.frameSize, hop = configuration.hopSize
        while pending.count - pendingStart >= n {
            pending.withUnsafeBufferPointer { src in
                for i in 0..<n { frame[i] = src[pendingStart + i] * window[i] }
            }
            frame.withUnsafeBufferPointer { f in
                power.withUnsafeMutableBufferPointer { p in fft.powerSpectrum(of: f, into: p) }
            }
            for k in 0..<power.count { magnitude[k] = power[k].squareRoot() }
            let spectral = SpectralFrame(index: frameIndex, magnitude: magnitude)
            for consumer in consumers { consumer.consume(spectral) }
            frameIndex += 1
            pendingStart += hop
        }
        // Compact the buffer once the consumed prefix is large.
        if pendingStart > 8 * n {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }
}
